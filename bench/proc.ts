import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** What a benchmark reads from another process's own counters in /proc (Linux only). */

/** Resident memory of a process: now and its peak so far, in MiB. */
export function residentMemory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

let ticksPerSecond: number | undefined;

/**
 * CPU milliseconds a process has used so far, all its threads, user and system, with the children
 * it has waited for (a tool's subprocess is the worker's cost too).
 */
export function cpuMilliseconds(pid: number): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime, stime, cutime, cstime are fields 14–17 of the whole line, 12–15 after the name.
  const ticks = fields.slice(11, 15).reduce((sum, field) => sum + Number(field), 0);
  return (ticks * 1000) / ticksPerSecond;
}

/**
 * Starts counting the CPU time of named processes (each read by its function, in ms); the function
 * returned says how many cores each used over `wallMs`, as "worker 0.54, server 0.33".
 */
export function cpuMeter(readers: Record<string, () => number>): (wallMs: number) => string {
  const before = Object.fromEntries(Object.entries(readers).map(([name, read]) => [name, read()]));
  return (wallMs) =>
    Object.entries(readers)
      .map(([name, read]) => `${name} ${((read() - before[name]) / wallMs).toFixed(2)}`)
      .join(', ');
}

/** The CPU milliseconds this process has used. */
export function ownCpuMilliseconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** The worker's and, when the bench's own dev server runs, the server's CPU readers for `cpuMeter`. */
export function workerAndServer(workerPid: number, serverPid: number | undefined): Record<string, () => number> {
  return {
    worker: () => cpuMilliseconds(workerPid),
    ...(serverPid ? { server: () => cpuMilliseconds(serverPid) } : {}),
  };
}
