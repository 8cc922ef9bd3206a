import { spawn } from 'node:child_process';
import { LOOM_BIN } from './worker-process.js';

export interface LoomResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the `loom` CLI as a user would, in its own process. */
export function runLoom(args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string; input?: string }): Promise<LoomResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LOOM_BIN, ...args], { env: options.env, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
  });
}

export function parseJson<T = any>(result: LoomResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`loom did not print JSON (exit ${result.code}):\nstdout: ${result.stdout}\nstderr: ${result.stderr}`);
  }
}
