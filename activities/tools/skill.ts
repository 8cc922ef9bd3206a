import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { z } from 'zod';
import type { skill as skillSpec } from '../../core/tools/skill.js';
import { readSkill, SKILL_FILE, discoverSkills } from '../config/skills.js';
import { ToolError, type ToolHandler } from './running/tool-handler.js';

/** How many of a skill's other files the result names (OpenCode's sample size). */
const FILE_SAMPLE = 10;

/**
 * Loads a skill on the workspace's host: finds it as the run's start did (the disk may have
 * changed since; the disk wins), and returns its instructions with the folder its other files are in.
 */
export const skill: ToolHandler<z.infer<typeof skillSpec.parameters>> = async (input, context) => {
  const { skills, problems } = discoverSkills(context.directory, context.env);
  const found = skills.find((candidate) => candidate.name === input.name);
  if (!found) {
    const skipped = problems.length
      ? `\nSkipped skill files (fix them to use them):\n${problems.map((problem) => problem.message).join('\n')}`
      : '';
    throw new ToolError(
      `Unknown skill "${input.name}". Available skills: ${skills.map((candidate) => candidate.name).join(', ') || 'none'}${skipped}`,
    );
  }
  const { body } = readSkill(found.location, context.env);
  const base = dirname(found.location);
  const files = sampleFiles(base);
  return {
    title: `Loaded skill: ${found.name}`,
    output: [
      `<skill_content name="${found.name}">`,
      `# Skill: ${found.name}`,
      '',
      body,
      '',
      `Base directory for this skill: ${base}`,
      'Relative paths in this skill (scripts/, reference/, …) are relative to this base directory: read them there with the read tool.',
      ...(files.length ? ['', '<skill_files>', ...files.map((file) => `<file>${file}</file>`), '</skill_files>'] : []),
      '</skill_content>',
    ].join('\n'),
    metadata: { name: found.name, dir: base },
  };
};

/**
 * Up to `FILE_SAMPLE` files of the skill's folder besides `SKILL.md`,
 * nearest first (dot entries and node_modules left out).
 */
function sampleFiles(base: string): string[] {
  const files: string[] = [];
  const queue = [base];
  while (queue.length && files.length < FILE_SAMPLE) {
    const folder = queue.shift()!;
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true }).sort((a, b) =>
        a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
      );
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const path = join(folder, entry.name);
      if (entry.isDirectory()) queue.push(path);
      else if (files.length < FILE_SAMPLE && !(folder === base && entry.name === SKILL_FILE)) files.push(path);
    }
  }
  return files;
}
