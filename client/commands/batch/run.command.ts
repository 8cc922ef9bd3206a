import type { Command } from 'commander';
import { execute } from '../execute.js';

export function registerBatchRun(batch: Command): void {
  batch
    .command('run')
    .description(
      'start a batch from a JSONL file of {description, prompt, agent?, model?, session_id?, directory?, timeout?} and follow it',
    )
    .argument('<file>', 'the tasks, one JSON object per line')
    .option('-a, --agent <name>', 'the agent for tasks that name none (default: the default agent)')
    .option('-m, --model <provider/model>', 'the model for tasks that name none')
    .option('-c, --concurrency <n>', 'tasks running at once', '8')
    .option('-r, --retries <n>', 'times a failed task is tried again', '1')
    .option(
      '--task-timeout <duration>',
      'cancel a task\'s run past this long (90s, 30m, 2h, 1h30m; a bare number is seconds; a line\'s "timeout" in ms wins); it fails and may be retried',
    )
    .option('-d, --dir <path>', 'the project directory (default: the current directory)')
    .option('--max-tokens <n>', 'a token budget for all the tasks together; no task starts once it is reached')
    .option('--max-cost <usd>', "a budget in dollars for all the tasks together (needs the models' prices)")
    .option('--task-max-tokens <n>', "a token budget for each task's session and its subagents")
    .option('--task-max-cost <usd>', "a budget in dollars for each task's session and its subagents")
    .option('--json', 'no progress bar; print the final progress as JSON')
    .option(
      '--isolate',
      'run each task in its own copy of the project, taken when the batch starts (uncommitted changes included; ignored files and files over 2 MiB left out); the project is untouched until `loom batch apply`',
    )
    .action(async (file: string, options) =>
      execute(async (context) => (await import('./run.js')).batchRunCommand(context, file, options)),
    );
}
