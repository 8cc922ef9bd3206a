import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../activities/process/package-root.js';
import { openSessionStore } from '../activities/store/open.js';
import { builtAt, sourcesChangedAt } from '../bin/entry.js';
import { OPENCODE_VERSION } from '../testkit/install/opencode.js';
import type { TerminalSession } from '../testkit/terminal/terminal-session.js';
import { BENCH_MODEL, type BenchEnv } from './harness.js';
import { importOpenCodeSession } from './opencode-sessions.js';
import { prepareOpenCode, type OpenCodeSetup } from './opencode-setup.js';
import { cpuMilliseconds, residentMemory } from './proc.js';
import { repeat, type Row } from './stats.js';
import { quantile, timeToScreen, timeToKeyShown } from './terminal-timing.js';
import {
  catEcho,
  echoWhileSubagentStreams,
  KEYSTROKES,
  promptShows,
  whileAnswerStreams,
  type OpenTui,
} from './tui-streaming.js';
import { lastAnswerOf, seedTranscript } from './tui-transcripts.js';

const BUILT = join(PACKAGE_ROOT, 'dist', 'cli', 'main.js');

/** Builds dist/ unless it is newer than the sources, as bin/loom.js judges a build. */
function buildIfStale(): void {
  if (existsSync(BUILT) && sourcesChangedAt() <= builtAt()) return;
  execFileSync('npm', ['run', 'build'], { cwd: PACKAGE_ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** A person's `loom` in a terminal: the bench's settings, and no NODE_ENV (nobody sets it to run a CLI). */
function personEnv(env: NodeJS.ProcessEnv, overrides: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = { ...env, LOOM_MODEL: BENCH_MODEL, ...overrides };
  delete result.NODE_ENV;
  return result;
}

/**
 * The terminal UI measured from the built CLI in tmux, as a person sees it: the first screen of a
 * new session and of a 500- and 5,000-message session (beside `loom show` of the 500, and
 * OpenCode's TUI on the same 500 messages), the UI's memory with the 5,000 open, keystroke echo
 * while a subagent streams and while the session's own answer streams at ~200 tokens a second
 * (beside an idle `cat`, whose echo is tmux's share alone), and what the UI writes to the terminal
 * per second during that stream. The bench's worker runs the sessions, so the UI's process is the
 * UI alone.
 */
export async function tuiBench(bench: BenchEnv, runs: number): Promise<Row[]> {
  buildIfStale();
  const seeded = mkdtempSync(join(tmpdir(), 'loom-bench-tui-'));
  const store = await openSessionStore({ dataDir: seeded });
  const openCode = await prepareOpenCode(bench);
  if ('reason' in openCode) console.log(`\n${openCode.reason}: the OpenCode TUI rows are skipped.`);
  try {
    const short = await seedTranscript(store, 500, bench.project);
    const long = await seedTranscript(store, 5_000, bench.project);
    const openCodeShort =
      'reason' in openCode
        ? undefined
        : await importOpenCodeSession(bench, openCode, 500).catch((error: Error) => {
            console.log(
              `\nOpenCode's copy of the session failed (${error.message.split('\n')[0]}): its rows are skipped.`,
            );
            return undefined;
          });
    const seededEnv = personEnv(bench.processEnv, { LOOM_DATA_DIR: seeded });
    const runEnv = personEnv(bench.processEnv);
    const openTui: OpenTui = (args, text, env = seededEnv) =>
      timeToScreen([process.execPath, BUILT, ...args], text, { env, cwd: bench.project });
    const timeOnce = async (args: string[], text: string) => {
      const { ms, terminal } = await openTui(args, text);
      await terminal.close();
      return ms;
    };
    const samples = await repeat(
      runs,
      async () => {
        const node = await nodeAlone(bench);
        const home = await timeOnce(['tui'], 'Ask anything');
        const first500 = await openTui(['tui', short], lastAnswerOf(500));
        // Read as soon as the screen shows it: less at the mercy of a busy machine than the wall time.
        const cpu500 = cpuMilliseconds(await first500.terminal.pid());
        // A key typed the moment the screen shows, on it once Ink has taken over from the first paint.
        const key500 = first500.ms + (await timeToKeyShown(first500.terminal, 'x', promptShows));
        await first500.terminal.close();
        const show500 = await timeOnce(['show', short], lastAnswerOf(500));
        const opened = await openTui(['tui', long], lastAnswerOf(5_000));
        const memory = await settledMemory(opened.terminal);
        await opened.terminal.close();
        const peer = openCodeShort && 'binary' in openCode ? await openCodeFirstScreen(openCode, openCodeShort) : {};
        const cat = await catEcho();
        const subagent = await echoWhileSubagentStreams(bench, runEnv, openTui);
        const stream = await whileAnswerStreams(bench, runEnv, openTui);
        return {
          node,
          home,
          tui500: first500.ms,
          cpu500,
          key500,
          show500,
          tui5000: opened.ms,
          rss5000: memory.rss,
          peak5000: memory.peak,
          ...peer,
          catMedian: quantile(cat, 0.5),
          catP95: quantile(cat, 0.95),
          subagentMedian: quantile(subagent, 0.5),
          subagentP95: quantile(subagent, 0.95),
          streamMedian: quantile(stream.echo, 0.5),
          streamP95: quantile(stream.echo, 0.95),
          tokensPerSecond: stream.tokensPerSecond,
          framesPerSecond: stream.framesPerSecond,
          kibPerSecond: stream.kibPerSecond,
          clearsPerSecond: stream.clearsPerSecond,
          streamCpu: stream.cpuShare,
        };
      },
      // Warms the disk cache and tmux: one first screen of each kind.
      async () => {
        await timeOnce(['tui', short], lastAnswerOf(500));
        await timeOnce(['show', short], lastAnswerOf(500));
      },
    );
    return rows(samples);
  } finally {
    await store.close();
    rmSync(seeded, { recursive: true, force: true });
    if ('root' in openCode) rmSync(openCode.root, { recursive: true, force: true });
  }
}

/** An empty Node program's first line in the same kind of terminal: what no change to Loom can go below. */
async function nodeAlone(bench: BenchEnv): Promise<number> {
  const { ms, terminal } = await timeToScreen(
    [process.execPath, '-e', "console.log('node is up'); setTimeout(() => {}, 60_000)"],
    'node is up',
    { env: personEnv(bench.processEnv), cwd: bench.project },
  );
  await terminal.close();
  return ms;
}

function rows(samples: Record<string, number[]>): Row[] {
  const row = (name: string, unit: string, key: string, note?: string): Row => ({
    name: `TUI: ${name}`,
    unit,
    samples: samples[key] ?? [],
    ...(note ? { note } : {}),
  });
  const echo = `each run: the median (p95) of ${KEYSTROKES} keys typed one at a time, to the prompt line on screen`;
  return [
    row(
      'Node alone (`node -e`), to its first line',
      'ms',
      'node',
      'the floor under every row: the machine’s speed now',
    ),
    row('first screen, new session (home), built', 'ms', 'home', 'from spawning it in tmux; no NODE_ENV'),
    row('first screen, 500-message session', 'ms', 'tui500', 'goal < 500 ms'),
    row('CPU to that first screen', 'ms', 'cpu500', 'its process, all threads'),
    row('a key typed at that first screen, on it', 'ms', 'key500', 'from spawning: once Ink has taken over'),
    row('`loom show` of the 500, to its last line', 'ms', 'show500'),
    row(
      'OpenCode TUI, first screen of the same 500',
      'ms',
      'openCode500',
      `OpenCode ${OPENCODE_VERSION}, \`opencode -s <id>\``,
    ),
    row('OpenCode TUI, CPU to that first screen', 'ms', 'openCodeCpu500'),
    row('OpenCode TUI, RSS with the 500 open', 'MiB', 'openCodeRss500'),
    row('first screen, 5,000-message session', 'ms', 'tui5000'),
    row('RSS with the 5,000 open', 'MiB', 'rss5000', 'goal < 150 MiB'),
    row('peak RSS with the 5,000 open', 'MiB', 'peak5000'),
    row('echo of an idle `cat` (tmux alone), median', 'ms', 'catMedian', echo),
    row('echo of an idle `cat`, p95', 'ms', 'catP95'),
    row('key echo while a subagent streams, median', 'ms', 'subagentMedian', 'goal 16 ms over tmux'),
    row('key echo while a subagent streams, p95', 'ms', 'subagentP95'),
    row('key echo while its answer streams, median', 'ms', 'streamMedian'),
    row('key echo while its answer streams, p95', 'ms', 'streamP95'),
    row('answer streamed, into the store', 'tokens/s', 'tokensPerSecond', '4 characters a token'),
    row('frames drawn while it streams', '/s', 'framesPerSecond', "at most openTui's maxFps"),
    row('bytes written while it streams', 'KiB/s', 'kibPerSecond'),
    row('whole-screen clears while it streams', '/s', 'clearsPerSecond', 'what would flicker'),
    row('its CPU while it streams', '% core', 'streamCpu'),
  ];
}

/** A terminal program's memory a second after its first screen: its reads and checks done, as the person reads. */
async function settledMemory(terminal: TerminalSession): Promise<{ rss: number; peak: number }> {
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return residentMemory(await terminal.pid());
}

/** OpenCode's TUI opened on the imported 500-message session: to its last answer on screen, its CPU and memory. */
async function openCodeFirstScreen(setup: OpenCodeSetup, sessionId: string) {
  const { ms, terminal } = await timeToScreen([setup.binary, '-s', sessionId], lastAnswerOf(500), {
    env: setup.env,
    cwd: setup.project,
  });
  try {
    const cpu = cpuMilliseconds(await terminal.pid());
    const memory = await settledMemory(terminal);
    return { openCode500: ms, openCodeCpu500: cpu, openCodeRss500: memory.rss };
  } finally {
    await terminal.close();
  }
}
