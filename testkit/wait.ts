import { readdirSync, readFileSync } from 'node:fs';

/** Polls `check` until it holds; returns how long that took, or throws after `timeoutMs`. */
export async function waitFor(check: () => boolean, timeoutMs: number): Promise<number> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Date.now() - start;
}

/**
 * `waitFor` with a check that has to ask (a query, a store read), every 100 ms: a wait ends on
 * average half an interval after its condition holds, and a check costs a millisecond or two.
 */
export async function waitUntil(check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Date.now() - start;
}

/**
 * Whether a process is still running. A killed process whose parent is gone stays a zombie until
 * PID 1 reaps it, which some sandboxes do late; a zombie counts as gone.
 */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/** The live processes of this machine whose command line contains `text` (any namespace this one can see). */
export function processesRunning(text: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        return readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(text);
      } catch {
        return false;
      }
    })
    .map(Number)
    .filter((pid) => pid !== process.pid && pidAlive(pid));
}
