import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { BatchRecord } from '../../core/batch/batch.js';
import type { BatchRecords } from '../store/batches.js';
import { isolationFolder, materialiseCopy, snapshotCopy, snapshotProject } from '../snapshot/copies.js';
import { snapshotRoot } from '../snapshot/project-root.js';
import type { ActivityDeps } from '../deps.js';
import { heartbeating } from '../process/heartbeating.js';
import { ApplicationFailure } from '@temporalio/common';
import { configStanding } from '../config/trust.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** An ended isolated batch's copies are deleted this long after it ended, applied or not. */
export const ISOLATED_KEEP_DAYS = 7;

/**
 * The host's side of `loom batch run --isolate`: a snapshot of the project when the batch starts,
 * a copy of it for each task as the task starts, and the copy's changes when the task ends.
 */
export function createBatchIsolationActivities({ store, dataDir, env }: ActivityDeps) {
  async function isolatedBatch(batchId: string): Promise<BatchRecord & { isolation: object }> {
    const batch = await store.getBatch(batchId);
    if (!batch?.isolation) throw new Error(`Batch ${batchId} is not an isolated batch`);
    return batch as BatchRecord & { isolation: object };
  }

  /**
   * Takes the snapshot every task's copy starts from, once, and records it on the batch. Refused
   * while the project's config files hold a change that waits for a person: every copy would start
   * from it, and its first run would take it as the copy's own.
   */
  async function prepareIsolatedBatch(input: { batchId: string }): Promise<{ base: string }> {
    const batch = await isolatedBatch(input.batchId);
    if (batch.isolation.base) return { base: batch.isolation.base };
    const standing = await configStanding(store, batch.directory, env);
    if (!standing.usedAsIs)
      throw ApplicationFailure.nonRetryable(
        `The config files of ${batch.directory} changed during an agent's work (${standing.changed.join(', ')}) and wait for a person: ` +
          'the batch would copy them into every task. Review them with `loom config` and trust them with `loom config trust` (or undo them), then start the batch again.',
        'ConfigError',
      );
    await collectIsolatedCopies(store, dataDir).catch(() => undefined);
    const folder = isolationFolder(dataDir, batch.id);
    const root = snapshotRoot(batch.directory);
    const base = await snapshotProject(folder, root);
    await store.saveBatch({ ...batch, isolation: { ...batch.isolation, base, root, folder } });
    return { base };
  }

  /**
   * Makes task `index`'s copy (afresh for each attempt) and returns the folder its session works
   * in: the batch's directory and the task's own folder, inside the copy.
   */
  async function prepareTaskCopy(input: { batchId: string; index: number }): Promise<{ directory: string }> {
    const batch = await isolatedBatch(input.batchId);
    const { base, root, folder } = batch.isolation;
    if (!base || !root || !folder) throw new Error(`Batch ${batch.id} has no snapshot to copy yet`);
    const entry = await store.batchTask(batch.id, input.index);
    if (!entry) throw new Error(`Batch ${batch.id} has no task ${input.index}`);
    const copy = await materialiseCopy(folder, base, input.index, root);
    const directory = join(copy, relative(root, batch.directory), entry.task.directory ?? '');
    // A folder with nothing in the snapshot (empty, or only ignored files) is made all the same.
    mkdirSync(directory, { recursive: true });
    return { directory };
  }

  /**
   * Takes the snapshot of a finished task's copy and writes the files it changed on the task's
   * outcome in the store; the run's history gets only the snapshot's id and the count.
   */
  async function finishTaskCopy(input: { batchId: string; index: number }): Promise<{ tree: string; count: number }> {
    const batch = await isolatedBatch(input.batchId);
    const { base, folder } = batch.isolation;
    if (!base || !folder) throw new Error(`Batch ${batch.id} has no snapshot to compare with`);
    const entry = await store.batchTask(batch.id, input.index);
    if (!entry) throw new Error(`Batch ${batch.id} has no task ${input.index}`);
    const { tree, files } = await snapshotCopy(folder, base, input.index);
    await store.saveBatchOutcomes(batch.id, [{ ...entry.outcome, changes: { tree, count: files.length, files } }]);
    return { tree, count: files.length };
  }

  return {
    prepareIsolatedBatch: (input: { batchId: string }) => heartbeating(() => prepareIsolatedBatch(input)),
    prepareTaskCopy: (input: { batchId: string; index: number }) => heartbeating(() => prepareTaskCopy(input)),
    finishTaskCopy: (input: { batchId: string; index: number }) => heartbeating(() => finishTaskCopy(input)),
  };
}

/**
 * Deletes the copies no batch needs any more: those of batches that are gone or whose copies were
 * let go, and those of batches that ended more than `ISOLATED_KEEP_DAYS` ago. Runs whenever an
 * isolated batch starts on the host, so copies never pile up.
 */
export async function collectIsolatedCopies(
  store: Pick<BatchRecords, 'getBatch' | 'saveBatch'>,
  dataDir: string,
  now = Date.now(),
): Promise<string[]> {
  const parent = join(dataDir, 'isolated');
  if (!existsSync(parent)) return [];
  const removed: string[] = [];
  for (const batchId of readdirSync(parent)) {
    const batch = await store.getBatch(batchId);
    const ended = batch && (batch.status === 'completed' || batch.status === 'cancelled');
    const stale = ended && now - batch.time.updated > ISOLATED_KEEP_DAYS * DAY_MS;
    if (batch && !batch.isolation?.removed && !stale) continue;
    rmSync(join(parent, batchId), { recursive: true, force: true });
    if (batch?.isolation && !batch.isolation.removed)
      await store.saveBatch({ ...batch, isolation: { ...batch.isolation, removed: now } });
    removed.push(batchId);
  }
  return removed;
}
