import { z } from 'zod';
import { evaluate, type Ruleset } from '../rules/permission.js';
import { defineTool } from '../tool-call/spec.js';

/** What the model is told about a skill before it loads one: no body, so the list stays small. */
export const SkillInfo = z.object({
  name: z.string(),
  description: z.string(),
  /** The `SKILL.md` file, on the workspace's host. */
  location: z.string(),
});
export type SkillInfo = z.infer<typeof SkillInfo>;

/** What the model reads about `skill`; `{skills}` becomes the `<available_skills>` list. */
const SKILL_DESCRIPTION = `Load a skill: specialised instructions and workflows for one kind of task, with any scripts and reference files that come with it.

Load a skill when the user asks for it by name, or when the task clearly matches a skill's description below. A skill about a repository or a domain is only for work on that repository or domain; do not load one for a loose overlap of words. The result holds the skill's instructions and its base directory: paths the skill mentions (scripts/, reference/, …) are relative to that directory, and you can open them with read.

{skills}`;

/** The skills a caller's rules do not deny, by name. */
export function visibleSkills(skills: SkillInfo[], rules: Ruleset): SkillInfo[] {
  return skills.filter((skill) => evaluate('skill', skill.name, rules).action !== 'deny');
}

/** The tool's description with the skills the caller may load. */
export function describeSkillTool(skills: SkillInfo[], callerRules: Ruleset): string {
  const visible = visibleSkills(skills, callerRules);
  const list = visible.length
    ? [
        '<available_skills>',
        ...visible.flatMap((skill) => [
          '  <skill>',
          `    <name>${skill.name}</name>`,
          `    <description>${skill.description}</description>`,
          '  </skill>',
        ]),
        '</available_skills>',
      ].join('\n')
    : 'No skills are available.';
  return SKILL_DESCRIPTION.replace('{skills}', list);
}

export const skill = defineTool({
  name: 'skill',
  description: describeSkillTool([], []),
  parameters: () =>
    z.object({
      name: z.string().describe('The name of the skill, from available_skills'),
    }),
  effect: 'read-only',
  // Reads one small file of the workspace: on its host, in the worker that runs the workflow when it can.
  local: true,
  summarize: (input) => input.name,
  permissions: (input) => [{ permission: 'skill', patterns: [input.name], always: [input.name] }],
});
