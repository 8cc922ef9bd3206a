import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../worker/bundle.js';

export const LOOM_BIN = join(PROJECT_ROOT, 'client', 'loom.js');

export interface WorkerProcessOptions {
  /** More arguments after `worker` (`--host-only`, `--host-id <id>`). */
  args?: string[];
  /** The worker's working directory (default: the test's). */
  cwd?: string;
}

/** A `loom worker` process; `output()` is everything it has written to stderr so far. */
export type WorkerProcess = ChildProcess & { output(): string };

/** `loom worker` in its own process, resolved once it polls. */
export async function startWorkerProcess(
  env: NodeJS.ProcessEnv,
  options: WorkerProcessOptions = {},
): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [LOOM_BIN, 'worker', ...(options.args ?? [])], {
    env,
    cwd: options.cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Never read otherwise: a full pipe would block the worker.
  child.stdout!.resume();
  const output = await untilPolling(child, 'loom worker', 30_000);
  return Object.assign(child, { output });
}

/**
 * Resolves once a worker process says on stderr that it polls, with a reader of everything it has
 * written there; rejects, with that output, when it exits first or takes longer than `timeoutMs`.
 */
export async function untilPolling(child: ChildProcess, name: string, timeoutMs: number): Promise<() => string> {
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name} did not start within ${timeoutMs / 1000} s:\n${output}`)),
      timeoutMs,
    );
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('polling task queue')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}:\n${output}`));
    });
  });
  child.removeAllListeners('exit');
  return () => output;
}

export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}
