import { resolve } from 'node:path';
import pc from 'picocolors';
import { discoverSkills } from '../../activities/config/skills.js';
import type { ClientContext } from '../context.js';

/**
 * `loom skills`: the skills the project offers (what the `skill` tool lists) and the `SKILL.md`
 * files skipped as malformed, each named with the key at fault. Skipped files make it exit 1, so a
 * script can check a project's skills.
 */
export async function skillsCommand(
  context: ClientContext,
  options: { json?: boolean; dir?: string },
): Promise<number> {
  const directory = resolve(options.dir ?? process.cwd());
  const { skills, problems } = discoverSkills(directory, context.env);
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ skills, skipped: problems.map((problem) => problem.message) })}\n`);
    return problems.length ? 1 : 0;
  }
  if (skills.length === 0 && problems.length === 0) {
    context.report(
      `No skills for ${directory}: add <name>/SKILL.md under .loom/skills/ (or .opencode/skill/, .claude/skills/).`,
    );
    return 0;
  }
  for (const skill of skills)
    process.stdout.write(`${pc.bold(skill.name)}  ${pc.dim(skill.location)}\n  ${skill.description}\n\n`);
  for (const problem of problems) context.report(`Skipped: ${problem.message}`);
  return problems.length ? 1 : 0;
}
