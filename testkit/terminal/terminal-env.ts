/**
 * Variables that make a program believe it runs in CI. Ink then renders only the final frame, on
 * exit (`is-in-ci` reads these two), so a terminal test would see a blank screen until the end.
 */
const CI_MARKERS = ['CI', 'CONTINUOUS_INTEGRATION'];

/**
 * Variables the terminal itself decides: a value inherited from the terminal the tests run in
 * would contradict the test's. `COLUMNS` and `LINES` in particular win over the pty's size in
 * `tput`, bash and others; tmux sets `TERM`, `TMUX` and `TMUX_PANE` for the pane.
 */
const TERMINAL_OWNED = ['TERM', 'COLUMNS', 'LINES', 'TMUX', 'TMUX_PANE', 'TERM_PROGRAM', 'TERM_PROGRAM_VERSION'];

/** The terminal type a test terminal announces: what most terminal emulators users run say. */
export const TEST_TERMINAL_TYPE = 'xterm-256color';

/**
 * The environment a program in a test terminal gets: `env` without the CI markers and the
 * variables the terminal owns, with `TERM=xterm-256color`.
 */
export function terminalEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || CI_MARKERS.includes(name) || TERMINAL_OWNED.includes(name)) continue;
    result[name] = value;
  }
  result.TERM = TEST_TERMINAL_TYPE;
  return result;
}
