import pc from 'picocolors';
import {
  applyBatch,
  appliedAlready,
  chooseTasks,
  discardCopies,
  endedIsolatedBatch,
  taskDiff,
  withChanges,
  type TaskApplied,
} from '../../services/batch-isolation.js';
import type { ClientContext } from '../../context.js';
import { plural } from '../../render/quantities.js';
import { wholeNumber } from './run.js';
import { noticeConfigChange } from '../../../activities/config/trust.js';

const taskNumbers = (tasks: string[]) => tasks.map((task) => wholeNumber('a task number', task, 0));

/** `loom batch apply <batch> [task…]`: exit 1 when a file conflicted. */
export async function batchApplyCommand(
  context: ClientContext,
  batchId: string,
  tasks: string[],
  options: { json?: boolean },
): Promise<number> {
  const done = tasks.length === 0 ? await appliedAlready(context.store, batchId) : undefined;
  if (done) {
    if (options.json) process.stdout.write(`${JSON.stringify({ batchId, tasks: [], removed: true })}\n`);
    context.report(done);
    return 0;
  }
  const batch = await endedIsolatedBatch(context.store, batchId, context.hostId);
  const chosen = await chooseTasks(context.store, batch, taskNumbers(tasks));
  const result = await applyBatch(context.store, batch, chosen);
  // What the tasks' agents changed of the configuration waits for a person, as if changed here.
  const waiting = await noticeConfigChange(context.store, batch.directory, context.env, { sessionId: batch.id });
  if (waiting)
    context.report(
      `${pc.yellow('⚠')} The applied changes include Loom's configuration (${waiting.files.join(', ')}): no run uses it until you review it with \`loom config\` and trust it with \`loom config trust\`.`,
    );
  const conflicts = result.tasks.reduce((sum, task) => sum + task.conflicts.length, 0);
  if (options.json) process.stdout.write(`${JSON.stringify(result)}\n`);
  else {
    if (chosen.length === 0) context.report(`Batch ${batchId}: every completed task is applied already.`);
    for (const task of result.tasks) process.stdout.write(describe(task));
    if (conflicts > 0)
      context.report(
        pc.yellow(
          `${plural(conflicts, 'file')} changed in the project since the batch started, left as they are: \`loom batch diff ${batchId} <task>\` shows each task's change.`,
        ),
      );
    if (result.removed) context.report(`Every completed task is applied: the copies are deleted.`);
  }
  return conflicts > 0 ? 1 : 0;
}

function describe(task: TaskApplied): string {
  const lines = [`task ${task.index} (${task.description}):`];
  const count = task.applied.length + task.merged.length;
  if (count + task.conflicts.length === 0) lines.push(pc.dim('  nothing to apply'));
  for (const path of task.applied) lines.push(`  ${pc.green('applied ')}  ${path}`);
  for (const path of task.merged) lines.push(`  ${pc.green('merged  ')}  ${path}`);
  for (const path of task.unchanged) lines.push(`  ${pc.dim('same    ')}  ${path}`);
  for (const path of task.conflicts) lines.push(`  ${pc.red('conflict')}  ${path}`);
  return `${lines.join('\n')}\n`;
}

/** `loom batch diff <batch> [task…]`: what each task changed in its copy, as one unified diff per task. */
export async function batchDiffCommand(
  context: ClientContext,
  batchId: string,
  tasks: string[],
  options: { json?: boolean },
): Promise<number> {
  const batch = await endedIsolatedBatch(context.store, batchId, context.hostId);
  const named = taskNumbers(tasks);
  const chosen =
    named.length > 0
      ? await chooseTasks(context.store, batch, named)
      : (await context.store.batchTasks(batchId)).filter(withChanges);
  if (options.json) {
    const diffs = await Promise.all(
      chosen.map(async ({ task, outcome }) => ({
        index: outcome.index,
        description: task.description,
        files: outcome.changes.files,
        diff: await taskDiff(batch, outcome.changes),
      })),
    );
    process.stdout.write(`${JSON.stringify(diffs)}\n`);
    return 0;
  }
  // Headers on stderr: the output alone is a patch `git apply` takes, from the project's root. Two
  // tasks' changes to one file both start from the snapshot, so only the first is in that patch.
  const shown = new Map<string, number>();
  for (const { task, outcome } of chosen) {
    const paths = (outcome.changes.files ?? []).map((file) => file.path);
    const overlaps = paths.filter((path) => shown.has(path));
    context.report(pc.bold(`task ${outcome.index} (${task.description}): ${plural(paths.length, 'file')}`));
    for (const path of overlaps)
      context.report(
        pc.yellow(
          `  ${path} left out: task ${shown.get(path)} changed it too (\`loom batch diff ${batchId} ${outcome.index}\` shows this task's change alone)`,
        ),
      );
    for (const path of paths) if (!shown.has(path)) shown.set(path, outcome.index);
    const own = paths.filter((path) => !overlaps.includes(path));
    process.stdout.write(await taskDiff(batch, outcome.changes, overlaps.length ? own : undefined));
  }
  return 0;
}

/** `loom batch discard <batch>`: deletes the copies without applying anything. */
export async function batchDiscardCommand(context: ClientContext, batchId: string): Promise<number> {
  const batch = await endedIsolatedBatch(context.store, batchId, context.hostId);
  await discardCopies(context.store, batch);
  context.report(`Batch ${batchId}: copies deleted, nothing applied.`);
  return 0;
}
