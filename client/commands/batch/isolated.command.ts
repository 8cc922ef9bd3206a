import type { Command } from 'commander';
import { execute } from '../execute.js';

export function registerBatchDiff(batch: Command): void {
  batch
    .command('diff')
    .description(
      "what an isolated batch's tasks changed in their copies, as unified diffs (paths from the project's root)",
    )
    .argument('<batchId>')
    .argument('[tasks...]', 'task numbers, as `loom batch results` shows them (default: every completed task)')
    .option('--json', 'print [{index, description, files, diff}] as JSON')
    .action(async (batchId: string, tasks: string[], options) =>
      execute(async (context) => (await import('./isolated.js')).batchDiffCommand(context, batchId, tasks, options)),
    );
}

export function registerBatchApply(batch: Command): void {
  batch
    .command('apply')
    .description(
      "apply an isolated batch's changes to the project: a file still as it was when the batch started takes the task's version, one changed since (by you, or by a task applied before) is merged when both are text and it merges cleanly, else reported as a conflict and left alone (exit 1)",
    )
    .argument('<batchId>')
    .argument(
      '[tasks...]',
      'task numbers, as `loom batch results` shows them (default: every completed task not applied yet)',
    )
    .option('--json', 'print {batchId, tasks: [{index, applied, merged, unchanged, conflicts}], removed} as JSON')
    .action(async (batchId: string, tasks: string[], options) =>
      execute(async (context) => (await import('./isolated.js')).batchApplyCommand(context, batchId, tasks, options)),
    );
}

export function registerBatchDiscard(batch: Command): void {
  batch
    .command('discard')
    .description("delete an isolated batch's copies without applying anything")
    .argument('<batchId>')
    .action(async (batchId: string) =>
      execute(async (context) => (await import('./isolated.js')).batchDiscardCommand(context, batchId)),
    );
}
