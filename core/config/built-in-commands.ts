import type { CommandConfig, LoomConfig } from './config.js';

/**
 * `/init`: the agent studies the project and writes (or improves) the `AGENTS.md` at its root,
 * which every later run reads (activities/config/rules.ts). As OpenCode's built-in command of the
 * same name; a project's own `command.init` replaces it.
 */
const INIT: CommandConfig = {
  description: 'create or update AGENTS.md, the rules every agent of this project reads',
  template: `Write an AGENTS.md at the root of this project for the coding agents that will work in it after you, or improve the one that is there.

Find out before you write: read the README and the package or build manifests, the build, test, lint, format and type-check configuration, the CI and pre-commit setup, and any rules files already present (AGENTS.md, CLAUDE.md, .cursorrules, .cursor/rules/, .github/copilot-instructions.md); then a few files of typical code. Where prose and configuration disagree, believe the configuration.

Keep only what an agent would get wrong without being told, in short lines:
- the exact commands to build, lint, type-check and test, and how to run a single test;
- the order commands must run in, and anything they need first;
- how the repository is divided (packages, services) and what must not be touched;
- the code style the tools do not enforce: imports, naming, types, error handling.

Leave out general advice, file listings and anything you did not check. Aim for well under 150 lines.

$ARGUMENTS`,
};

/** The commands a run offers: the project's (`command`, `.opencode/command/*.md`) and Loom's built-in ones it does not replace. */
export function commandsOf(config: LoomConfig): Record<string, CommandConfig> {
  return { init: INIT, ...config.command };
}
