import { TerminalSession } from '../testkit/terminal/terminal-session.js';

/**
 * Timings read off a real terminal (tmux), as a person would see them: what is on the screen and
 * when. Every figure includes the time to ask tmux for the screen (a `capture-pane` process, a few
 * ms); the idle `cat` row of the `tui` benchmark measures that share alone.
 */

/** How often the screen is read while waiting for something to appear on it. */
const SCREEN_POLL_MS = 10;
/** How often the screen is read while waiting for a typed key's echo. */
const ECHO_POLL_MS = 2;
/** What a fresh terminal is given. */
const COLUMNS = 120;
const ROWS = 40;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts `command` in a fresh terminal and reads the screen every 10 ms until it shows `text`; the
 * ms from the start (tmux's own start, ~10–20 ms, included) and the terminal, left open.
 */
export async function timeToScreen(
  command: string[],
  text: string,
  options: { env: NodeJS.ProcessEnv; cwd: string; timeoutMs?: number },
): Promise<{ ms: number; terminal: TerminalSession }> {
  const started = performance.now();
  const terminal = await TerminalSession.start({
    command,
    env: options.env,
    cwd: options.cwd,
    columns: COLUMNS,
    rows: ROWS,
  });
  try {
    await screenShows(terminal, (screen) => screen.includes(text), SCREEN_POLL_MS, options.timeoutMs ?? 60_000);
    return { ms: performance.now() - started, terminal };
  } catch (error) {
    await terminal.close();
    throw new Error(`${command.join(' ')}: ${(error as Error).message}`);
  }
}

/**
 * Types `count` letters one at a time, each after a person's pause, and times each from the moment
 * it is sent until `echoed(screen, typedSoFar)` holds; the ms of each.
 */
export async function echoTimes(
  terminal: TerminalSession,
  count: number,
  echoed: (screen: string, typed: string) => boolean,
): Promise<number[]> {
  const times: number[] = [];
  let typed = '';
  for (let index = 0; index < count; index++) {
    const key = String.fromCharCode(97 + (index % 26));
    typed += key;
    const started = performance.now();
    await terminal.type(key);
    const shown = typed;
    await screenShows(terminal, (screen) => echoed(screen, shown), ECHO_POLL_MS, 10_000);
    times.push(performance.now() - started);
    // 20–59 ms between keys, varied so that keys land at every point of the program's drawing cycle.
    await sleep(20 + ((index * 17) % 40));
  }
  return times;
}

/** Types `key` once and times it until `echoed(screen, key)` holds. */
export async function timeToKeyShown(
  terminal: TerminalSession,
  key: string,
  echoed: (screen: string, typed: string) => boolean,
): Promise<number> {
  const started = performance.now();
  await terminal.type(key);
  await screenShows(terminal, (screen) => echoed(screen, key), ECHO_POLL_MS, 10_000);
  return performance.now() - started;
}

/** The `fraction` quantile of `values` (nearest rank): 0.5 the median, 0.95 the p95. */
export function quantile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(Math.ceil(fraction * sorted.length) - 1, 0)];
}

async function screenShows(
  terminal: TerminalSession,
  shows: (screen: string) => boolean,
  pollMs: number,
  timeoutMs: number,
): Promise<void> {
  const started = performance.now();
  let screen = '';
  for (let look = 0; ; look++) {
    screen = await terminal.screen();
    if (shows(screen)) return;
    if (performance.now() - started > timeoutMs) break;
    // Now and then: a program that ended will never show it.
    if (look % 50 === 49 && (await terminal.exited())) break;
    await sleep(pollMs);
  }
  throw new Error(`not on the screen within ${timeoutMs} ms (or the program ended); it showed:\n${screen}`);
}
