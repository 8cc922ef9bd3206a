/**
 * The workflows a benchmark worker runs: Loom's own, plus bare ones that measure what Temporal
 * itself costs on the same server (children doing nothing).
 */
import { startChild } from '@temporalio/workflow';

export * from '../workflows/index.js';

export async function noopWorkflow(): Promise<void> {}

/** Starts `total` no-op children, at most `concurrency` at a time: Temporal's own floor for a batch. */
export async function bareBatchWorkflow(total: number, concurrency: number): Promise<number> {
  let next = 0;
  const lane = async () => {
    while (next < total) {
      next++;
      const child = await startChild(noopWorkflow, {});
      await child.result();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return total;
}
