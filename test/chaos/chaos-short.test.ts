import { afterAll, describe, expect, it } from 'vitest';
import { closeOpenClusters } from '../../chaos/cluster.js';
import { FULL_RUN, type ChaosOptions } from '../../chaos/options.js';
import { formatReport } from '../../chaos/report.js';
import { runChaos } from '../../chaos/run.js';

/** `npm run chaos` in small: the same faults and checks, a few of each. */
const SHORT: ChaosOptions = {
  ...FULL_RUN,
  kills: 5,
  killEveryMs: 2_500,
  workers: 2,
  sessionsPerWave: 2,
  treesPerWave: 1,
  children: 2,
  asks: 1,
  batchTasks: 40,
  batchConcurrency: 8,
  outageMs: 2_000,
  settleMs: 90_000,
  seed: 20261123,
  verbose: false,
};

// A run that overstays the test's time still stops its servers and workers.
afterAll(() => closeOpenClusters());

describe('chaos, short', () => {
  it('kills workers, restarts Temporal and PostgreSQL, fails model calls: nothing lost, duplicated or stuck', async () => {
    const report = await runChaos(SHORT);
    const table = formatReport(report);
    expect(report.faults, table).toMatchObject({ kills: SHORT.kills, temporalRestarts: 1, postgresRestarts: 1 });
    expect(report.findings, table).toMatchObject({
      lost: 0,
      duplicated: 0,
      sideEffectsDuplicated: 0,
      stuck: 0,
      batchDoneOnce: SHORT.batchTasks,
      asksAnswered: SHORT.asks,
    });
    expect(report.findings.sessions, table).toBeGreaterThanOrEqual(SHORT.batchTasks + SHORT.asks + 2);
    expect(report.findings.problems, table).toEqual([]);
    expect(report.ok, table).toBe(true);
  }, 300_000);
});
