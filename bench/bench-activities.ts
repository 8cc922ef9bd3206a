import { setTimeout as sleep } from 'node:timers/promises';

/** The bare workflows' activities (bench/workflows.ts): nothing, or waiting as a model thinks. */
export interface BenchActivities {
  noopActivity(): Promise<void>;
  thinkActivity(ms: number): Promise<void>;
}

export const benchActivities: BenchActivities = {
  noopActivity: async () => undefined,
  thinkActivity: (ms) => sleep(ms),
};
