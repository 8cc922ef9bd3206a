import { existsSync, rmSync } from 'node:fs';
import { applyChanges, type ApplyResult } from '../../activities/snapshot/apply-changes.js';
import { unifiedDiff } from '../../activities/snapshot/changes.js';
import { batchSnapshots, copyFolder } from '../../activities/snapshot/copies.js';
import type { BatchRecords } from '../../activities/store/batches.js';
import type {
  BatchIsolation,
  BatchRecord,
  BatchTaskInput,
  BatchTaskOutcome,
  TaskChanges,
} from '../../core/batch/batch.js';
import { InputError } from '../input-error.js';

type Store = Pick<BatchRecords, 'getBatch' | 'saveBatch' | 'batchTasks'>;
type Isolated = BatchRecord & {
  isolation: Required<Pick<BatchIsolation, 'base' | 'root' | 'folder'>> & BatchIsolation;
};
type TaskEntry = { task: BatchTaskInput; outcome: BatchTaskOutcome & { changes: TaskChanges } };

/** What `loom batch apply` did for one task. */
export interface TaskApplied extends ApplyResult {
  index: number;
  description: string;
}

export interface BatchApplied {
  batchId: string;
  tasks: TaskApplied[];
  /** The copies were deleted: every completed task is applied, without conflicts. */
  removed: boolean;
}

/** An isolated batch that has ended, whose copies are on this machine; anything else is refused with what to do. */
export async function endedIsolatedBatch(store: Store, batchId: string, hostId: string): Promise<Isolated> {
  const batch = await store.getBatch(batchId);
  if (!batch) throw new InputError(`Unknown batch "${batchId}". \`loom batch ls\` lists batches.`);
  const isolation = batch.isolation;
  if (!isolation)
    throw new InputError(
      `Batch ${batchId} did not run with --isolate: its tasks changed the project itself, so it has no changes to apply.`,
    );
  if (batch.status === 'running' || batch.status === 'paused')
    throw new InputError(
      `Batch ${batchId} is still ${batch.status}: its tasks' changes can be seen and applied once it has ended (\`loom batch status ${batchId} --watch\` follows it, \`loom batch cancel ${batchId}\` ends it).`,
    );
  if (batch.host && batch.host !== hostId)
    throw new InputError(`Batch ${batchId}'s project and copies are on host ${batch.host}: run this there.`);
  if (isolation.removed)
    throw new InputError(
      `Batch ${batchId}'s copies were deleted on ${new Date(isolation.removed).toISOString().slice(0, 19).replace('T', ' ')}: \`loom batch results ${batchId}\` still lists the files each task changed.`,
    );
  if (!isolation.base || !isolation.root || !isolation.folder || !existsSync(isolation.folder))
    throw new InputError(`Batch ${batchId} took no snapshot of its project (it ended before any task started).`);
  return batch as Isolated;
}

/**
 * What to say when a batch's copies are gone because every completed task was applied: a second
 * `loom batch apply` has nothing left to do, which is no failure. Undefined otherwise.
 */
export async function appliedAlready(store: Store, batchId: string): Promise<string | undefined> {
  const batch = await store.getBatch(batchId);
  const isolation = batch?.isolation;
  if (!isolation?.removed || !isolation.applied?.length) return undefined;
  const applied = new Set(isolation.applied);
  const completed = (await store.batchTasks(batchId)).filter((entry) => entry.outcome.status === 'completed');
  if (!completed.every((entry) => applied.has(entry.outcome.index))) return undefined;
  const when = new Date(isolation.removed).toISOString().slice(0, 19).replace('T', ' ');
  return `Batch ${batchId} was already applied on ${when} (${isolation.applied.length === 1 ? 'task' : 'tasks'} ${isolation.applied.join(', ')}): nothing to do.`;
}

/** A completed task of an isolated batch, with the changes its copy holds. */
export function withChanges(entry: { task: BatchTaskInput; outcome: BatchTaskOutcome }): entry is TaskEntry {
  return entry.outcome.status === 'completed' && entry.outcome.changes !== undefined;
}

/**
 * The tasks named (numbers as `loom batch results` shows them), each completed with its changes
 * recorded; none named: every completed task not applied yet.
 */
export async function chooseTasks(store: Store, batch: Isolated, named: number[]): Promise<TaskEntry[]> {
  const all = await store.batchTasks(batch.id);
  if (named.length === 0) {
    const applied = new Set(batch.isolation.applied ?? []);
    return all.filter(withChanges).filter((entry) => !applied.has(entry.outcome.index));
  }
  return named.map((index) => {
    const entry = all[index];
    if (!entry)
      throw new InputError(
        `Batch ${batch.id} has no task ${index}: its tasks are numbered 0 to ${all.length - 1} (\`loom batch results ${batch.id}\`).`,
      );
    if (!withChanges(entry))
      throw new InputError(
        `Task ${index} of batch ${batch.id} (${JSON.stringify(entry.task.description)}) is ${entry.outcome.status}: only a completed task's changes can be applied.`,
      );
    return entry;
  });
}

/**
 * Applies the chosen tasks' changes to the project, one task after another (a file an earlier
 * task changed is, for a later one, changed since the snapshot). Records them as applied, and
 * deletes the copies of tasks applied without conflicts; all of them once every completed task is.
 */
export async function applyBatch(store: Store, batch: Isolated, tasks: TaskEntry[]): Promise<BatchApplied> {
  const { base, root, folder } = batch.isolation;
  const git = batchSnapshots(folder, root, 'apply');
  const results: TaskApplied[] = [];
  for (const { task, outcome } of tasks) {
    const paths = (outcome.changes.files ?? []).map((file) => file.path);
    const result = await applyChanges(git, base, outcome.changes.tree, paths);
    results.push({ index: outcome.index, description: task.description, ...result });
  }
  const applied = [...new Set([...(batch.isolation.applied ?? []), ...results.map((result) => result.index)])];
  const completed = (await store.batchTasks(batch.id)).filter((entry) => entry.outcome.status === 'completed');
  const conflicts = results.some((result) => result.conflicts.length > 0);
  const removed = !conflicts && completed.every((entry) => applied.includes(entry.outcome.index));
  if (removed) rmSync(folder, { recursive: true, force: true });
  else
    for (const result of results)
      if (result.conflicts.length === 0) rmSync(copyFolder(folder, result.index), { recursive: true, force: true });
  await store.saveBatch({
    ...batch,
    isolation: { ...batch.isolation, applied, ...(removed ? { removed: Date.now() } : {}) },
  });
  return { batchId: batch.id, tasks: results, removed };
}

/** The unified diff of what a task changed in its copy (of `paths` only, if given), paths from the project's root. */
export async function taskDiff(batch: Isolated, changes: TaskChanges, paths?: string[]): Promise<string> {
  const git = batchSnapshots(batch.isolation.folder, batch.isolation.root, 'apply');
  return unifiedDiff(git, batch.isolation.base, changes.tree, paths);
}

/** Deletes an ended batch's copies without applying anything. */
export async function discardCopies(store: Store, batch: Isolated): Promise<void> {
  rmSync(batch.isolation.folder, { recursive: true, force: true });
  await store.saveBatch({ ...batch, isolation: { ...batch.isolation, removed: Date.now() } });
}
