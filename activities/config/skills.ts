import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import type { SkillInfo } from '../../core/tools/skill.js';
import { configDir } from '../process/paths.js';
import { ConfigError } from './errors.js';
import { diskFiles, type ConfigFiles } from './files.js';
import { parseMarkdown } from './markdown.js';
import { errorMessage } from '../../core/text/error-message.js';

export const SKILL_FILE = 'SKILL.md';

/** In the global config folder: `skill/`, `skills/`. */
const GLOBAL_FOLDERS = [['skill'], ['skills']];
/** In each folder on the way to the project, in order of application (later wins, as config layers do). */
const PROJECT_FOLDERS = [
  ['.claude', 'skills'],
  ['.opencode', 'skill'],
  ['.opencode', 'skills'],
  ['.loom', 'skill'],
  ['.loom', 'skills'],
];
/**
 * Skills may be grouped in folders (`skills/team/review/SKILL.md`),
 * as OpenCode's `**` finds them; not deeper than this.
 */
const MAX_DEPTH = 4;

/** Agent Skills' rule, as OpenCode documents it: lowercase words of letters and digits joined by single hyphens. */
const SKILL_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

const SkillFrontmatter = z.object({
  name: z
    .string()
    .max(64)
    .regex(SKILL_NAME, 'must be lowercase letters and digits in words joined by single hyphens, like "git-release"'),
  description: z.string().trim().min(1).max(1024),
});

export interface SkillDiscovery {
  /** By name, each name once (the last definition found), sorted by name. */
  skills: SkillInfo[];
  /** `SKILL.md` files that were skipped, each error naming the file and the key at fault. */
  problems: ConfigError[];
}

/**
 * The skills a project offers: `SKILL.md` files with `name` and `description` in YAML frontmatter,
 * in the global config folder's `skill(s)/`, then in every folder from the filesystem root down to
 * the project, its `.claude/skills/`, `.opencode/skill(s)/` and `.loom/skill(s)/`. A later
 * definition of a name replaces an earlier one, so the project's beat the user's and nearer
 * folders beat farther ones, as config layers do. The folder's name need not be the skill's
 * (OpenCode keys skills by their frontmatter `name` only).
 *
 * A malformed file is skipped, not fatal (as OpenCode does): one broken skill should not stop every
 * run of the project. Its error is returned in `problems` for the caller to report.
 */
export function discoverSkills(
  directory: string,
  env: NodeJS.ProcessEnv,
  files: ConfigFiles = diskFiles,
): SkillDiscovery {
  const roots = GLOBAL_FOLDERS.map((parts) => join(configDir(env), ...parts));
  for (const folder of foldersDown(resolve(directory)))
    roots.push(...PROJECT_FOLDERS.map((parts) => join(folder, ...parts)));
  const byName = new Map<string, SkillInfo>();
  const problems: ConfigError[] = [];
  for (const file of roots.flatMap((root) => skillFiles(files, root, 1))) {
    try {
      const skill = readSkill(file, env, files).info;
      byName.delete(skill.name);
      byName.set(skill.name, skill);
    } catch (error) {
      problems.push(error instanceof ConfigError ? error : new ConfigError(`${file}: ${errorMessage(error)}`));
    }
  }
  const skills = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { skills, problems };
}

/** A skill file's frontmatter, checked, and its body (the markdown after the frontmatter). */
export function readSkill(
  file: string,
  env: NodeJS.ProcessEnv,
  files: ConfigFiles = diskFiles,
): { info: SkillInfo; body: string } {
  const { data, body } = parseMarkdown(files.read(file), file, env);
  const parsed = SkillFrontmatter.safeParse(data);
  if (!parsed.success) {
    const lines = parsed.error.issues.map(
      (issue) => `  ${issue.path.length ? issue.path.join('.') : '(frontmatter)'}: ${issue.message}`,
    );
    throw new ConfigError(`${file}: invalid skill frontmatter\n${lines.join('\n')}`);
  }
  return { info: { name: parsed.data.name, description: parsed.data.description, location: file }, body };
}

/** The folders from the filesystem root down to `directory`. */
function foldersDown(directory: string): string[] {
  const folders = [directory];
  while (dirname(folders[0]) !== folders[0]) folders.unshift(dirname(folders[0]));
  return folders;
}

/**
 * `SKILL.md` files in the folders under `folder`, in name order. A folder holding one is a skill:
 * its other folders are the skill's own files, not searched further. Dot folders and
 * `node_modules` are skipped.
 */
function skillFiles(files: ConfigFiles, folder: string, depth: number): string[] {
  if (depth > MAX_DEPTH || !files.isDirectory(folder)) return [];
  const found: string[] = [];
  for (const entry of files.list(folder).sort()) {
    if (entry.startsWith('.') || entry === 'node_modules') continue;
    const path = join(folder, entry);
    if (!files.isDirectory(path)) continue;
    const skillFile = join(path, SKILL_FILE);
    found.push(...(files.isFile(skillFile) ? [skillFile] : skillFiles(files, path, depth + 1)));
  }
  return found;
}
