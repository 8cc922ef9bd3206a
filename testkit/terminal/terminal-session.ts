import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { terminalEnvironment, TEST_TERMINAL_TYPE } from './terminal-env.js';
import { findTmux, killTmuxServerSync, tmux, type TmuxServer } from './tmux.js';

export interface TerminalOptions {
  /** The program and its arguments, run directly (no shell between). */
  command: string[];
  /** Default: the test's working directory. */
  cwd?: string;
  /** Default: the test's environment; the CI markers are removed either way (see `terminalEnvironment`). */
  env?: NodeJS.ProcessEnv;
  /** Default: 100 columns by 30 rows. */
  columns?: number;
  rows?: number;
}

/** How the command ended: an exit status, or the signal that ended it. */
export interface TerminalExit {
  status?: number;
  signal?: number;
}

/**
 * The settings of every test server. `remain-on-exit` keeps the final screen of a program that
 * ended, and an empty `remain-on-exit-format` keeps tmux from writing "Pane is dead" over its last
 * line (`-q`: tmux before 3.3 has no such option and prints nothing there anyway).
 */
const SERVER_CONFIG = [
  `set -g default-terminal ${TEST_TERMINAL_TYPE}`,
  'set -g status off',
  'set -g remain-on-exit on',
  "set -gq remain-on-exit-format ''",
].join('\n');

const POLL_MS = 50;
const running = new Set<TerminalSession>();
let exitHandlerInstalled = false;

/**
 * A program running in a real terminal: a detached tmux session on a private server (its own
 * socket in a temp folder, so tests never touch the user's tmux and parallel files never meet).
 * Tests type and press keys as a user would and read the screen as the user would see it.
 */
export class TerminalSession {
  private closed = false;

  private constructor(
    private readonly server: TmuxServer,
    private readonly folder: string,
    private readonly pane: string,
    private readonly serverPid: number,
    /** What the terminal runs, for error messages. */
    readonly description: string,
  ) {}

  /** Starts `command` in a new terminal of the given size; it may not have drawn anything yet (see `waitFor`). */
  static async start(options: TerminalOptions): Promise<TerminalSession> {
    if (options.command.length === 0) throw new Error('TerminalSession.start needs a command to run.');
    const { columns = 100, rows = 30, cwd = process.cwd() } = options;
    const folder = mkdtempSync(join(tmpdir(), 'loom-tmux-'));
    writeFileSync(join(folder, 'tmux.conf'), SERVER_CONFIG + '\n');
    // The first tmux client starts the server, which copies the client's environment into its global
    // environment, and new panes get that: so the server is started with exactly this environment.
    const server: TmuxServer = {
      binary: findTmux(),
      socket: join(folder, 'socket'),
      env: terminalEnvironment(options.env ?? process.env),
    };
    const description = `"${options.command.join(' ')}"`;
    let pane: string;
    let serverPid: number;
    try {
      const printed = await tmux(server, [
        '-f',
        join(folder, 'tmux.conf'),
        'new-session',
        '-d',
        '-P',
        '-F',
        '#{pane_id} #{pid}',
        '-x',
        String(columns),
        '-y',
        String(rows),
        '-c',
        cwd,
        '--',
        ...directCommand(options.command),
      ]);
      [pane, serverPid] = [printed.split(' ')[0], Number(printed.split(' ')[1])];
    } catch (error) {
      killTmuxServerSync(server);
      rmSync(folder, { recursive: true, force: true });
      throw new Error(`Could not start ${description} in tmux (in ${cwd}): ${(error as Error).message}`);
    }
    const session = new TerminalSession(server, folder, pane, serverPid, description);
    running.add(session);
    if (!exitHandlerInstalled) process.once('exit', closeAllSync);
    exitHandlerInstalled = true;
    return session;
  }

  /** Types `text` as literal characters (a newline in it is Ctrl-J, not Enter: use `press('Enter')`). */
  async type(text: string): Promise<void> {
    await this.tmux(['send-keys', '-t', this.pane, '-l', '--', text]);
  }

  /**
   * Pastes `text` as a terminal pastes it: all at once, wrapped in bracketed-paste markers when the
   * program asked for them (tmux's `paste-buffer -p`), through a buffer loaded from a file, so a
   * megabyte goes in whole.
   */
  async paste(text: string): Promise<void> {
    const file = join(this.folder, `paste-${Date.now()}.txt`);
    writeFileSync(file, text);
    await this.tmux(['load-buffer', '-b', 'loom-paste', file]);
    await this.tmux(['paste-buffer', '-p', '-d', '-b', 'loom-paste', '-t', this.pane]);
  }

  /** Presses named keys in order, in tmux's names: `Enter`, `Escape`, `Tab`, `BTab`, `Up`, `C-c`, `M-x`, `F5` … */
  async press(...keys: string[]): Promise<void> {
    await this.tmux(['send-keys', '-t', this.pane, '--', ...keys]);
  }

  /** The screen as text: each line without trailing blanks, no blank lines at the end. */
  async screen(): Promise<string> {
    const captured = await this.tmux(['capture-pane', '-p', '-t', this.pane]);
    return captured
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n')
      .trimEnd();
  }

  /** The screen with its SGR escape codes (colours, bold …), every cell kept: what `screenshotPng` draws. */
  async screenWithColours(): Promise<string> {
    return this.tmux(['capture-pane', '-p', '-e', '-N', '-t', this.pane]);
  }

  /**
   * Waits until the screen shows `pattern` (a string it contains, or a RegExp it matches) and
   * returns that screen. Fails with the last screen when it does not appear within `timeoutMs`,
   * or at once when the program ended without showing it.
   */
  async waitFor(pattern: string | RegExp, { timeoutMs = 10_000 }: { timeoutMs?: number } = {}): Promise<string> {
    const shows = (screen: string) =>
      typeof pattern === 'string' ? screen.includes(pattern) : screen.search(pattern) >= 0;
    const start = Date.now();
    for (;;) {
      const screen = await this.screen();
      if (shows(screen)) return screen;
      const exit = await this.exited();
      if (exit || Date.now() - start > timeoutMs) {
        const why = exit ? `the program ended (${describeExit(exit)}) first` : `not within ${timeoutMs} ms`;
        throw new Error(
          `${String(pattern)} did not appear on the terminal running ${this.description}: ${why}. ` +
            `The screen showed:\n${frame(screen)}`,
        );
      }
      await sleep(POLL_MS);
    }
  }

  /** Resizes the terminal, as a user dragging the window's corner; the program gets SIGWINCH. */
  async resize(columns: number, rows: number): Promise<void> {
    await this.tmux(['resize-window', '-t', this.pane, '-x', String(columns), '-y', String(rows)]);
  }

  /** The terminal's size now, as `screenshotPng` wants it. */
  async size(): Promise<{ columns: number; rows: number }> {
    const printed = await this.tmux(['display-message', '-p', '-t', this.pane, '#{pane_width} #{pane_height}']);
    const [columns, rows] = printed.trim().split(' ').map(Number);
    return { columns, rows };
  }

  /** The process id of the program the terminal runs (tmux's `#{pane_pid}`): for reading its memory or CPU in /proc. */
  async pid(): Promise<number> {
    const printed = await this.tmux(['display-message', '-p', '-t', this.pane, '#{pane_pid}']);
    return Number(printed.trim());
  }

  /**
   * From now on, appends every byte the program writes to the terminal to `file` (tmux's
   * `pipe-pane`): what a terminal emulator would have to parse and draw, escape codes and all.
   */
  async recordOutput(file: string): Promise<void> {
    await this.tmux(['pipe-pane', '-o', '-t', this.pane, `cat >> '${file.replaceAll("'", `'\\''`)}'`]);
  }

  /**
   * How the command ended, or undefined while it runs (and, rarely, for a moment after: prefer
   * `waitForExit`). The final screen stays readable after.
   */
  async exited(): Promise<TerminalExit | undefined> {
    const printed = await this.tmux([
      'display-message',
      '-p',
      '-t',
      this.pane,
      '#{pane_dead}:#{pane_dead_status}:#{pane_dead_signal}',
    ]);
    const [dead, status, signal] = printed.trim().split(':');
    if (dead === '1' && (signal || status)) return signal ? { signal: Number(signal) } : { status: Number(status) };
    // tmux learns of the exit from SIGCHLD, and misses it when the program ends while libutempter has
    // its own handler in (tmux issue 311): one in ten quick commands here. Another SIGCHLD makes tmux
    // reap what has ended, so the next look sees it; to a server with nothing ended, it is harmless.
    try {
      process.kill(this.serverPid, 'SIGCHLD');
    } catch {
      // The server is gone; the next tmux command says so.
    }
    return undefined;
  }

  /** Waits for the command to end; fails with the screen when it is still running after `timeoutMs`. */
  async waitForExit({ timeoutMs = 10_000 }: { timeoutMs?: number } = {}): Promise<TerminalExit> {
    const start = Date.now();
    for (;;) {
      const exit = await this.exited();
      if (exit) return exit;
      if (Date.now() - start > timeoutMs)
        throw new Error(
          `${this.description} was still running after ${timeoutMs} ms. The screen showed:\n${frame(await this.screen())}`,
        );
      await sleep(POLL_MS);
    }
  }

  /** Ends the tmux server (the program gets SIGHUP if still running) and removes its folder. Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    running.delete(this);
    await tmux(this.server, ['kill-server']).catch(() => undefined);
    rmSync(this.folder, { recursive: true, force: true });
  }

  private tmux(args: string[]): Promise<string> {
    if (this.closed) return Promise.reject(new Error(`The terminal running ${this.description} is closed.`));
    return tmux(this.server, args);
  }

  /** For the exit handler: a test that failed before its `close` leaves no tmux server behind. */
  closeSync(): void {
    this.closed = true;
    killTmuxServerSync(this.server);
    rmSync(this.folder, { recursive: true, force: true });
  }
}

/**
 * tmux runs a command of several arguments directly, but a single one through the user's shell:
 * that one goes as `exec '<program>'`, quoted so sh, bash, zsh and fish all read it the same.
 */
function directCommand(command: string[]): string[] {
  if (command.length > 1) return command;
  return [`exec '${command[0].replaceAll("'", `'\\''`)}'`];
}

function describeExit(exit: TerminalExit): string {
  return exit.signal !== undefined ? `signal ${exit.signal}` : `status ${exit.status}`;
}

function frame(screen: string): string {
  return screen
    .split('\n')
    .map((line) => `│ ${line}`)
    .join('\n');
}

function closeAllSync(): void {
  for (const session of running) session.closeSync();
  running.clear();
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
