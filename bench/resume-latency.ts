import { newId, partId } from '../core/records/ids.js';
import type { MessageWithParts } from '../core/records/message.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../activities/process/package-root.js';
import type { BenchEnv } from './harness.js';
import { globSteps } from './per-step.js';
import { repeat, type Row } from './stats.js';
import { freePort } from '../testkit/network/free-port.js';
import { waitUntil } from '../testkit/wait.js';

/**
 * A session of `count` messages: a real 3-step session whose first tool-calling step is then
 * copied (new ids, same content) until the session holds `count` messages.
 */
async function sessionWithMessages(bench: BenchEnv, count: number): Promise<string> {
  bench.model.setScript(globSteps());
  const { sessionId, result } = await bench.startSession('Take 3 steps.');
  await result();
  const messages = await bench.store.messages(sessionId);
  const step = messages.find((m) => m.info.role === 'assistant' && m.parts.some((p) => p.type === 'tool'))!;
  for (let copy = messages.length; copy < count; copy++) await saveCopy(bench, step, copy);
  return sessionId;
}

async function saveCopy(bench: BenchEnv, { info, parts }: MessageWithParts, copy: number): Promise<void> {
  const id = newId('msg', Date.now(), Math.random);
  await bench.store.saveMessage({ ...info, id });
  for (const [index, part] of parts.entries()) {
    await bench.store.savePart({
      ...part,
      id: partId(id, index),
      messageID: id,
      ...(part.type === 'tool' ? { callID: `${part.callID}-${copy}` } : {}),
    });
  }
}

/**
 * Time from starting `loom resume <id> "…"` (a new CLI process) to the scripted model receiving
 * the run's first request, for a session of 500 messages next to one of 4.
 */
export async function resumeLatency(bench: BenchEnv, runs: number): Promise<Row[]> {
  const long = await sessionWithMessages(bench, 500);
  const short = await sessionWithMessages(bench, 4);
  const resume = async (sessionId: string, messages: number) => {
    bench.model.setScript([{ reply: { text: 'Resumed.' } }]);
    bench.model.requests.length = 0;
    const prompt = `Resume ${Date.now()}`;
    const start = performance.now();
    // The `loom` bin: the build when it is current (the `cli` benchmark makes it), else the sources.
    const child = spawn(process.execPath, [join(PACKAGE_ROOT, 'bin', 'loom.js'), 'resume', sessionId, prompt], {
      env: bench.processEnv,
      cwd: bench.project,
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.resume();
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const request = await bench.model.waitForRequest((r) => r.lastUser === prompt, 60_000);
    const elapsed = performance.now() - start;
    const code = await exited;
    if (code !== 0) throw new Error(`loom resume exited with ${code}: ${stderr}`);
    // The model saw the whole session: its messages as chat turns (tool results are turns of their own).
    if (request.messages.length < messages)
      throw new Error(`The model saw ${request.messages.length} messages, expected ${messages} or more`);
    return elapsed;
  };
  const served = await startServe(bench);
  try {
    const samples = await repeat(runs, async () => {
      const longMs = await resume(long, 500);
      const shortMs = await resume(short, 4);
      const servedMs = await promptThroughServe(bench, served.base, long);
      return { longMs, shortMs, ratio: longMs / shortMs, servedMs };
    });
    return resumeRows(samples);
  } finally {
    served.process.kill('SIGTERM');
  }
}

/** `loom serve` (the build when current), running before the prompts it is timed on: no start-up in its figure. */
async function startServe(bench: BenchEnv): Promise<{ base: string; process: ChildProcess }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [join(PACKAGE_ROOT, 'bin', 'loom.js'), 'serve', '--port', String(port), '--no-worker'],
    { env: bench.processEnv, cwd: bench.project },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.resume();
  try {
    await waitUntil(() => Promise.resolve(stderr.includes('Loom server and web view on')), 60_000);
  } catch {
    child.kill('SIGTERM');
    throw new Error(`loom serve did not start: ${stderr}`);
  }
  return { base: `http://127.0.0.1:${port}`, process: child };
}

/** Time from `POST /session/{id}/message` to a running `loom serve` to the model receiving the run's first request. */
async function promptThroughServe(bench: BenchEnv, base: string, sessionId: string): Promise<number> {
  bench.model.setScript([{ reply: { text: 'Resumed.' } }]);
  const prompt = `Served ${Date.now()}`;
  const start = performance.now();
  const sent = await fetch(`${base}/session/${sessionId}/message`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ prompt }),
  });
  if (sent.status !== 202) throw new Error(`loom serve answered ${sent.status}: ${await sent.text()}`);
  await bench.model.waitForRequest((r) => r.lastUser === prompt, 60_000);
  const elapsed = performance.now() - start;
  // The next sample's run starts on an idle session.
  await waitUntil(async () => (await bench.store.getSession(sessionId))?.status === 'idle', 60_000);
  return elapsed;
}

function resumeRows(samples: Record<'longMs' | 'shortMs' | 'ratio' | 'servedMs', number[]>): Row[] {
  return [
    {
      name: 'resume: 500-message session, to first model request',
      unit: 'ms',
      samples: samples.longMs,
      note: '`loom resume` in a new process (the build when current)',
    },
    { name: 'resume: 4-message session, to first model request', unit: 'ms', samples: samples.shortMs },
    { name: 'resume: 500 ÷ 4 messages', unit: '×', samples: samples.ratio },
    {
      name: 'resume: 500-message session through a running `loom serve`, to first model request',
      unit: 'ms',
      samples: samples.servedMs,
      note: 'POST /session/{id}/message: no process to start, its Temporal client warm',
    },
  ];
}
