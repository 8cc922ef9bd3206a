import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cancelSession } from '../client/services/sessions.js';
import type { ScriptRule } from '../testkit/model/scripted-model-script.js';
import { TerminalSession } from '../testkit/terminal/terminal-session.js';
import type { BenchEnv } from './harness.js';
import { cpuMilliseconds } from './proc.js';
import { echoTimes } from './terminal-timing.js';

/** How many keys each echo measurement types. */
export const KEYSTROKES = 30;
/** How long echo measurements wait after the first screen shows before typing. */
const SETTLE_MS = 1_000;
/** How long the output of a streaming answer is recorded. */
const STREAM_WINDOW_MS = 3_000;
const SUBAGENT_PROMPT = 'Hand the long answer to a subagent.';
const CHILD_PROMPT = 'Write the long answer slowly.';
const STREAM_PROMPT = 'Answer at 200 tokens a second.';
/** What Ink writes before each frame when the terminal takes synchronized output. */
const FRAME_START = '\x1b[?2026h';
const CLEAR_SCREEN = '\x1b[2J';

/** Opens the built CLI's terminal UI with `args` and waits for `text` on its screen. */
export type OpenTui = (
  args: string[],
  text: string,
  env?: NodeJS.ProcessEnv,
) => Promise<{ ms: number; terminal: TerminalSession }>;

/** `length` characters of prose in numbered lines of ~60: an answer the screen wraps and scrolls. */
function prose(length: number): string {
  const lines: string[] = [];
  for (let line = 1; lines.join('\n').length < length; line++)
    lines.push(`Line ${line}: the answer goes on, word after word, at a steady pace.`);
  return lines.join('\n');
}

/**
 * A parent that hands a slow answer (~160 characters a second for ~25 s) to a `general` subagent,
 * and an answer of its own streamed at ~200 tokens a second (8 characters every 10 ms) for ~20 s.
 */
function streamingScript(): ScriptRule[] {
  return [
    {
      when: { lastUser: SUBAGENT_PROMPT, lastRole: 'user', toolOffered: 'task' },
      reply: {
        toolCalls: [
          {
            name: 'task',
            args: { description: 'Write the long answer', prompt: CHILD_PROMPT, subagent_type: 'general' },
          },
        ],
      },
    },
    { when: { lastUser: SUBAGENT_PROMPT, lastRole: 'tool' }, reply: { text: 'The subagent answered.' } },
    { when: { lastUser: CHILD_PROMPT }, reply: { text: prose(4_000), chunkSize: 8, chunkDelayMs: 50 } },
    { when: { lastUser: STREAM_PROMPT }, reply: { text: prose(16_000), chunkSize: 8, chunkDelayMs: 10 } },
    { reply: { text: 'Done.' } },
  ];
}

/** The prompt line shows exactly what was typed (the cursor after it is a blank the screen's text drops). */
export const promptShows = (screen: string, typed: string) => screen.split('\n').includes(`› ${typed}`);

/** Echo times of an idle `cat` in the same kind of terminal: the terminal driver echoes, tmux draws. */
export async function catEcho(): Promise<number[]> {
  const terminal = await TerminalSession.start({ command: ['cat'], columns: 120, rows: 40 });
  try {
    await new Promise((resolve) => setTimeout(resolve, 200));
    return await echoTimes(terminal, KEYSTROKES, (screen, typed) => screen.split('\n')[0] === typed);
  } finally {
    await terminal.close();
  }
}

/** Key echo in the terminal UI on a parent whose subagent streams its answer slowly (the bench's worker runs it). */
export async function echoWhileSubagentStreams(
  bench: BenchEnv,
  env: NodeJS.ProcessEnv,
  openTui: OpenTui,
): Promise<number[]> {
  bench.model.setScript(streamingScript());
  const { sessionId, result } = await bench.startSession(SUBAGENT_PROMPT);
  try {
    await bench.model.waitForRequest((request) => request.lastUser.includes(CHILD_PROMPT), 30_000);
    const { terminal } = await openTui(['tui', sessionId], 'Write the long answer', env);
    try {
      // The first screen is painted before Ink is up: keys typed in its first moments wait for Ink
      // (the first-screen rows time that); these time the screen at work, as a person reading it first meets it.
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      return await echoTimes(terminal, KEYSTROKES, promptShows);
    } finally {
      await terminal.close();
    }
  } finally {
    await cancelSession(bench.client, sessionId, bench.store);
    await result().catch(() => undefined);
  }
}

/**
 * The terminal UI on a session whose answer streams at ~200 tokens a second (the bench's worker
 * runs it): what the UI writes to the terminal and the CPU it uses over 3 s, then key echo while
 * the answer goes on.
 */
export async function whileAnswerStreams(bench: BenchEnv, env: NodeJS.ProcessEnv, openTui: OpenTui) {
  bench.model.setScript(streamingScript());
  const { sessionId, result } = await bench.startSession(STREAM_PROMPT);
  const recording = mkdtempSync(join(tmpdir(), 'loom-bench-tui-output-'));
  try {
    const { terminal } = await openTui(['tui', sessionId], 'Line 2:', env);
    try {
      const file = join(recording, 'output');
      const pid = await terminal.pid();
      const before = await answerLength(bench, sessionId);
      const cpuBefore = cpuMilliseconds(pid);
      await terminal.recordOutput(file);
      await new Promise((resolve) => setTimeout(resolve, STREAM_WINDOW_MS));
      const cpu = cpuMilliseconds(pid) - cpuBefore;
      const output = existsSync(file) ? readFileSync(file, 'latin1') : '';
      const after = await answerLength(bench, sessionId);
      const perSecond = (count: number) => count / (STREAM_WINDOW_MS / 1000);
      const echo = await echoTimes(terminal, KEYSTROKES, promptShows);
      return {
        echo,
        framesPerSecond: perSecond(output.split(FRAME_START).length - 1),
        kibPerSecond: perSecond(output.length / 1024),
        clearsPerSecond: perSecond(output.split(CLEAR_SCREEN).length - 1),
        tokensPerSecond: perSecond((after - before) / 4),
        cpuShare: (cpu / STREAM_WINDOW_MS) * 100,
      };
    } finally {
      await terminal.close();
    }
  } finally {
    await cancelSession(bench.client, sessionId, bench.store);
    await result().catch(() => undefined);
    rmSync(recording, { recursive: true, force: true });
  }
}

/** Characters of text in the session's answers so far. */
async function answerLength(bench: BenchEnv, sessionId: string): Promise<number> {
  const messages = await bench.store.messages(sessionId);
  return messages
    .filter((message) => message.info.role === 'assistant')
    .flatMap((message) => message.parts)
    .reduce((sum, part) => sum + (part.type === 'text' ? part.text.length : 0), 0);
}
