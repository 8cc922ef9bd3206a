import type { Command } from 'commander';
import { execute } from './execute.js';

export function registerDeploy(program: Command): void {
  program
    .command('deploy')
    .description("make this installation's build the current version of its worker deployment: new runs go to it")
    .option('--build-id <id>', 'make this build current instead (one whose workers still run: a roll-back)')
    .option('--status', 'only list the versions and where each stands (current, draining, drained)')
    .option('--json', 'print it as one JSON object')
    .addHelpText(
      'after',
      `
Each worker runs its build pinned: a run stays on the build it started on, and new runs go to the
current build. The embedded dev server makes each new build current by itself; against another
Temporal, start the new build's workers (\`loom worker\`), run \`loom deploy\`, and stop the old
workers once \`loom deploy --status\` says their build drained.`,
    )
    .action(async (options) =>
      execute(async (context) => (await import('./deploy.js')).deployCommand(context, options)),
    );
}
