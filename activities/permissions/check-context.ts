import type { Ruleset } from '../../core/rules/permission.js';

/** Where a call is checked: the project it works in. */
export interface CheckContext {
  directory: string;
  /** The user's global config folder: a write there asks `config`. */
  globalConfigDir?: string;
  /** The agent's rules on reading files: a shell line naming a file they guard asks as `read` would. */
  readRules?: Ruleset;
  /** The home folder `~` names, which a grant never opens for writing (default: this process's). */
  home?: string;
  /** What the sandbox refused earlier bash calls of the session, by command line: why an `unsandboxed` ask is made. */
  sandboxRefusals?: ReadonlyMap<string, string>;
}
