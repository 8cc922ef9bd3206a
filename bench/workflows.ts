/**
 * The workflows a benchmark worker runs: Loom's own, plus bare ones that measure what Temporal
 * itself costs on the same server (activities and children doing nothing).
 */
import { proxyActivities, startChild } from '@temporalio/workflow';
import type { BenchActivities } from './bench-activities.js';

export * from '../workflows/index.js';

const { noopActivity, thinkActivity } = proxyActivities<BenchActivities>({ startToCloseTimeout: '1 minute' });

export async function noopWorkflow(): Promise<void> {}

/** `count` no-op activities one after another: the floor under one agent step. */
export async function sequentialActivitiesWorkflow(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await noopActivity();
}

/** `count` activities one after another that each wait `ms`: an agent session's shape with none of its work. */
export async function thinkingActivitiesWorkflow(count: number, ms: number): Promise<void> {
  for (let i = 0; i < count; i++) await thinkActivity(ms);
}

/** `count` no-op children started at once and awaited: the floor under a fan-out of subagents. */
export async function fanOutWorkflow(count: number): Promise<void> {
  const children = await Promise.all(Array.from({ length: count }, () => startChild(noopWorkflow, {})));
  await Promise.all(children.map((child) => child.result()));
}

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
