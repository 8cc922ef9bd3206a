import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Whether a process with this id exists (a zombie counts until reaped). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A process's command line, arguments joined by spaces, or '' if it does not exist. */
export function processArgs(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');
  } catch {
    // No /proc (macOS): ask ps.
    try {
      return execFileSync('ps', ['-p', String(pid), '-o', 'args='], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      });
    } catch {
      return '';
    }
  }
}

/**
 * Whether `pid` is alive and a `temporal server start-dev` process (for `port` if given). Zombies
 * have no command line, so they count as gone.
 */
export function isTemporalServerPid(pid: number | undefined, port?: number): boolean {
  if (!pid || !Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return false;
  const args = ` ${processArgs(pid)} `;
  const command = args.indexOf(' server start-dev ');
  return command >= 0 && args.includes(port === undefined ? '--port ' : `--port ${port} `, command);
}

/** The pid written in a pid file, if the file holds one. */
export function readPid(file: string): number | undefined {
  try {
    const text = readFileSync(file, 'utf8').trim();
    return /^[0-9]+$/.test(text) ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}
