import { spawn } from 'node:child_process';

export interface RunResult {
  /** Exited with status 0. */
  ok: boolean;
  /** The program was not found on PATH (or is not executable). */
  missing: boolean;
  stdout: string;
  stderr: string;
  /** Why it failed, in a few words: `exit 1`, `killed after 20 s`, `spawn go ENOENT`. */
  failure: string;
}

/** Runs a program to completion with stdin from /dev/null, keeping its output (also passed to `onOutput` as it comes); never rejects. */
export function runProgram(
  file: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; timeoutMs?: number; onOutput?: (chunk: string) => void },
): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      options.onOutput?.(chunk);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      options.onOutput?.(chunk);
    });
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            child.kill('SIGKILL');
          }, options.timeoutMs);
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const missing = error.code === 'ENOENT' || error.code === 'EACCES';
      resolve({ ok: false, missing, stdout, stderr, failure: error.message });
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const failure = timedOut
        ? `killed after ${options.timeoutMs! / 1000} s`
        : signal
          ? `killed by ${signal}`
          : `exit ${code}`;
      resolve({ ok: code === 0, missing: false, stdout, stderr, failure });
    });
  });
}

/** The last lines of a program's output, indented, for a report. */
export function lastLines(text: string, count = 5): string[] {
  const lines = text.replace(/\n+$/, '').split('\n');
  return text.trim() ? lines.slice(-count).map((line) => `    ${line}`) : [];
}
