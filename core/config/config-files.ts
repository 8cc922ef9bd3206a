import { dirnamePath, isInsidePath, resolvePath } from '../text/path.js';

/** Config files in each folder on the way to a project, in order of application (`loom.json` wins). */
export const CONFIG_FILE_NAMES = ['opencode.jsonc', 'opencode.json', 'loom.jsonc', 'loom.json'] as const;

/** Config folders in each folder on the way to a project, in order of application (`.loom` wins). */
export const CONFIG_FOLDER_NAMES = ['.opencode', '.loom'] as const;

/** Skills Loom reads from Claude Code's folder too: instructions for agents, guarded as config is. */
const SKILL_FOLDER = '.claude/skills';

/** What the plan agent writes inside a config folder: plans, not configuration. */
const NOT_CONFIG = new Set(['plans']);

// Rules (AGENTS.md, CLAUDE.md, `instructions`) join this list once Loom reads them.

/**
 * Whether writing `path` changes what configures Loom, and so what an agent may do next: a file
 * named like a config file (`loom.json`, `opencode.jsonc`, …) anywhere, anything inside a `.loom/`
 * or `.opencode/` folder except their `plans/`, skills in `.claude/skills/`, and anything in the
 * user's global config folder. A name anywhere counts, not only on the way to this project: a
 * session started later in a subfolder, or in another project, would read it.
 */
export function isConfigPath(path: string, options: { globalConfigDir?: string } = {}): boolean {
  const absolute = resolvePath('/', path);
  if (options.globalConfigDir && isInsidePath(resolvePath('/', options.globalConfigDir), absolute)) return true;
  const names = absolute.split('/').filter(Boolean);
  const last = names[names.length - 1];
  if (last !== undefined && (CONFIG_FILE_NAMES as readonly string[]).includes(last)) return true;
  for (const [index, name] of names.entries()) {
    if (!(CONFIG_FOLDER_NAMES as readonly string[]).includes(name)) continue;
    if (index + 1 < names.length && NOT_CONFIG.has(names[index + 1])) continue;
    return true;
  }
  return absolute.includes(`/${SKILL_FOLDER}/`) || absolute.endsWith(`/${SKILL_FOLDER}`);
}

/**
 * The paths that configure sessions in `directory` and that a process working there could create
 * or change: each config file and folder of the directory and of every folder above it, with
 * Claude Code's skills. Most do not exist; the sandbox keeps those that do read-only.
 */
export function configPathsAround(directory: string): string[] {
  const paths: string[] = [];
  for (let folder = resolvePath('/', directory); ; folder = dirnamePath(folder)) {
    for (const name of [...CONFIG_FILE_NAMES, ...CONFIG_FOLDER_NAMES, SKILL_FOLDER])
      paths.push(folder === '/' ? `/${name}` : `${folder}/${name}`);
    if (folder === '/') break;
  }
  return paths;
}
