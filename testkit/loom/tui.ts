import { TerminalSession } from '../terminal/terminal-session.js';
import { SCRIPTED_MODEL, type LoomTestEnv } from './loom-env.js';
import { LOOM_BIN } from './worker-process.js';

/** `loom tui …` (or `loom` alone with no arguments) in a real terminal, in the test's project with its environment. */
export function openLoomTui(
  env: LoomTestEnv,
  args: string[] = ['tui'],
  options: { columns?: number; rows?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<TerminalSession> {
  return TerminalSession.start({
    command: [process.execPath, LOOM_BIN, ...args],
    cwd: env.project,
    // React's production build, as a person's `loom` runs it (vitest sets NODE_ENV=test).
    env: { ...env.env, NODE_ENV: 'production', LOOM_MODEL: SCRIPTED_MODEL, ...options.env },
    columns: options.columns ?? 120,
    rows: options.rows ?? 40,
  });
}
