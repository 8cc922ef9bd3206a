import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a group has to stop after SIGTERM before it gets SIGKILL. */
export const KILL_GRACE_MS = 2_000;
/**
 * How long to keep reading after the command exits. Output still in the pipe arrives at once; a
 * process the command left in the background may hold the pipe open for ever.
 */
const DRAIN_MS = 500;
const POLL_MS = 50;

// The command runs as `bash -c <command>` with stderr joined to stdout, so both arrive through one
// pipe in the order they were written. The command is an argument, never spliced into a script,
// and `exec` leaves nothing between this worker and the command's shell: `$$`, the exit code and
// a death by signal are the command's own.
const MERGED_OUTPUT = 'exec "$BASH" -c "$1" bash 2>&1';
// Node cannot ask the kernel to kill a child when its parent dies (no PR_SET_PDEATHSIG), so a
// guard does it. It is started before the command and reads the command's pid, then waits for one
// byte from the worker. A byte means the command is done; end of file means the worker died (the
// kernel closed its end of the pipe), and the guard kills the command's whole group. The guard is
// the worker's child, outside the group, so it survives the SIGTERM of a kill, is reaped by the
// worker, and is invisible to the command.
const GUARD = 'read -r pid || exit 0; read -r -n 1 _ || kill -KILL -- "-$pid" 2>/dev/null';
// The command waits for the worker's go-ahead, sent once the guard has its pid: a worker killed
// before that leaves a command that never starts, not one that no guard watches.
const AFTER_GUARD = 'read -r -n 1 _ || exit 1; exec </dev/null; ';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A command running in its own process group, so that it and everything it starts can be killed together. */
export interface ProcessGroup {
  /** The command's pid, which is also the id of its process group. */
  pid: number;
  /** Settles when the command's own process exits (processes it left behind may still run). */
  exited: Promise<Exit>;
  /** SIGTERM to the whole group, then SIGKILL if anything is left after the grace period. */
  kill(): Promise<void>;
  /** Reads what is left of the output (briefly), then dismisses the guard. Call once, when done. */
  finish(): Promise<void>;
}

/** How to start bash inside a sandbox: the launcher before it, and what runs in the sandbox first. */
export interface Launch {
  launcher: string[];
  preamble: string;
  env: Record<string, string>;
}

export async function startProcessGroup(
  command: string,
  options: { cwd: string; env: NodeJS.ProcessEnv; onOutput(text: string): void; sandbox?: Launch },
): Promise<ProcessGroup> {
  // bubblewrap kills its sandbox, every process in it, when the worker dies (`--die-with-parent`
  // and a process namespace of its own): no guard needed, and one fork of the worker saved.
  const guard = options.sandbox ? undefined : startGuard();
  const [program, ...args] = [
    ...(options.sandbox?.launcher ?? []),
    'bash',
    '-c',
    (options.sandbox?.preamble ?? '') + (guard ? AFTER_GUARD : '') + MERGED_OUTPUT,
    'loom-bash',
    command,
  ];
  const child = spawn(program, args, {
    cwd: options.cwd,
    env: options.sandbox ? { ...options.env, ...options.sandbox.env } : options.env,
    detached: true,
    stdio: [guard ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  // Both writes reach their pipes before spawn's tick ends, so there is no moment when the command
  // runs and the guard does not know it.
  if (guard && child.pid !== undefined) {
    guard.stdin!.write(`${child.pid}\n`);
    child.stdin!.on('error', () => {});
    child.stdin!.end('x');
  }
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const streams = [child.stdout!, child.stderr!];
  for (const stream of streams) {
    stream.setEncoding('utf8');
    stream.on('data', options.onOutput);
  }
  try {
    await once(child, 'spawn');
  } catch (error) {
    guard?.stdin!.end();
    throw error;
  }
  child.on('error', () => {});
  const pid = child.pid!;
  return {
    pid,
    exited,
    kill: () => killGroup(pid),
    async finish() {
      await Promise.all(streams.map((stream) => closed(stream, DRAIN_MS)));
      guard?.stdin!.end('x');
    },
  };
}

function startGuard() {
  const guard = spawn('bash', ['-c', GUARD, 'loom-guard'], {
    env: { PATH: process.env.PATH },
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  guard.on('error', () => {});
  guard.stdin!.on('error', () => {});
  return guard;
}

/** Stops a process group: SIGTERM, and SIGKILL after `graceMs` if any of it is still there. */
export async function killGroup(pgid: number, graceMs = KILL_GRACE_MS): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) return;
  for (const deadline = Date.now() + graceMs; Date.now() < deadline;) {
    await sleep(POLL_MS);
    // An orphan that died stays in the group as a zombie until PID 1 reaps it, and some PID 1s
    // (containers without an init) never do; then the group looks alive until the deadline.
    if (!signalGroup(pgid, 0)) return;
  }
  signalGroup(pgid, 'SIGKILL');
}

/** Sends a signal to every process in a group; false when the group is gone. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

function closed(stream: Readable, waitMs: number): Promise<void> {
  if (stream.closed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => stream.destroy(), waitMs);
    stream.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
