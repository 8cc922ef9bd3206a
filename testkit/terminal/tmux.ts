import { execFile, spawnSync } from 'node:child_process';
import { aptInstall } from '../install/apt.js';
import { findExecutable } from '../install/executables.js';

/**
 * tmux for terminal tests: `tmux` on PATH, else Debian's `tmux` package installed with apt-get
 * (as Chromium is), so a fresh machine and CI need no manual step.
 */
export function findTmux(env: NodeJS.ProcessEnv = process.env): string {
  const found = findExecutable(['tmux'], env);
  if (found) return found;
  aptInstall('tmux', 'No tmux found for the terminal tests (put tmux on PATH)');
  const installed = findExecutable(['tmux'], env);
  if (!installed) throw new Error(`apt-get installed the tmux package, but tmux is not on PATH (${env.PATH}).`);
  return installed;
}

/** One tmux server, reached by its own socket file, never the user's default server. */
export interface TmuxServer {
  binary: string;
  socket: string;
  /** The environment tmux runs with; the client that starts the server hands it to the server. */
  env: Record<string, string>;
}

/** Runs one tmux command (or several joined by `;`) on `server`; resolves to what it printed. */
export function tmux(server: TmuxServer, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      server.binary,
      ['-S', server.socket, ...args],
      { env: server.env, encoding: 'utf8', timeout: 10_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`tmux ${args.join(' ')} failed: ${stderr.trim() || error.message}`));
        else resolve(stdout);
      },
    );
  });
}

/** `tmux kill-server` that waits, for an exit handler; a server already gone is no error. */
export function killTmuxServerSync(server: TmuxServer): void {
  spawnSync(server.binary, ['-S', server.socket, 'kill-server'], { env: server.env, stdio: 'ignore', timeout: 5000 });
}
