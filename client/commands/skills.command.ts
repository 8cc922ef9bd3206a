import type { Command } from 'commander';
import { execute } from './execute.js';

export function registerSkills(program: Command): void {
  program
    .command('skills')
    .description('list the skills the skill tool offers in this project, and the SKILL.md files skipped as malformed')
    .option('-d, --dir <path>', 'the project directory (default: the current directory)')
    .option('--json', 'print {skills, skipped} as JSON')
    .action(async (options) =>
      execute(async (context) => (await import('./skills.js')).skillsCommand(context, options)),
    );
}
