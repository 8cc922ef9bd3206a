import { execFile } from 'node:child_process';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PACKAGE_ROOT } from '../activities/package-root.js';
import { CliError } from './cli-error.js';

const run = promisify(execFile);
const SCRIPT = join(PACKAGE_ROOT, 'temporal-dev.sh');

/** Runs `temporal-dev.sh <command>`; its report goes to stderr so stdout stays for results. */
export async function devServer(command: 'start' | 'stop' | 'status', env: NodeJS.ProcessEnv = process.env): Promise<string> {
  try {
    const { stdout } = await run('bash', [SCRIPT, command], { env, maxBuffer: 1 << 20 });
    return stdout;
  } catch (error) {
    const failure = error as { stderr?: string; stdout?: string; code?: number };
    if (command === 'status' && failure.code === 3) return failure.stdout ?? '';
    throw new CliError(`temporal-dev.sh ${command} failed:\n${(failure.stderr || failure.stdout || String(error)).trim()}`);
  }
}

/** Whether something accepts TCP connections at `host:port`. */
export function isListening(address: string, timeoutMs = 500): Promise<boolean> {
  const [host, port] = splitAddress(address);
  return new Promise((resolve) => {
    const socket = createConnection({ host, port });
    const done = (result: boolean) => {
      socket.destroy();
      resolve(result);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function splitAddress(address: string): [string, number] {
  const colon = address.lastIndexOf(':');
  return [address.slice(0, colon), Number(address.slice(colon + 1))];
}
