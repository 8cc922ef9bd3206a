import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { LOOM_BIN } from './worker-process.js';

export interface LoomResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface LoomOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Written to stdin, which is then closed; with `keepStdinOpen` the test writes to it itself. */
  input?: string;
  keepStdinOpen?: boolean;
  /** The script to run instead of the sources' `client/loom.js` (the build's, the bin). */
  entry?: string;
}

/** Starts the `loom` CLI in its own process, as a user would. */
export function spawnLoom(
  args: string[],
  options: LoomOptions,
): { child: ChildProcessWithoutNullStreams; result: Promise<LoomResult> } {
  const child = spawn(process.execPath, [options.entry ?? LOOM_BIN, ...args], {
    env: options.env,
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const result = new Promise<LoomResult>((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  if (!options.keepStdinOpen) child.stdin.end(options.input ?? '');
  return { child, result };
}

export function runLoom(args: string[], options: LoomOptions): Promise<LoomResult> {
  return spawnLoom(args, options).result;
}

export function parseJson<T = any>(result: LoomResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(
      `loom did not print JSON (exit ${result.code}):\nstdout: ${result.stdout}\nstderr: ${result.stderr}`,
    );
  }
}
