import { defineConfig } from 'vitest/config';

// Options each project repeats: inline projects do not inherit the root's `test` block, and
// `extends: true` would also inherit its globalSetup and start a second Temporal dev server.
const shared = {
  pool: 'forks',
  testTimeout: 60_000,
  hookTimeout: 120_000,
} as const;

/** The workflow and e2e tests that matter for several machines, run again on a PostgreSQL store. */
const onPostgres = [
  'test/workflows/subagents.test.ts',
  'test/workflows/subagent-tree.test.ts',
  'test/workflows/batch.test.ts',
  'test/workflows/permissions.test.ts',
  'test/workflows/worker-crash.test.ts',
  'test/e2e/subagents.test.ts',
  'test/e2e/batch.test.ts',
  'test/e2e/permissions.test.ts',
  'test/e2e/serve-events.test.ts',
  'test/workflows/background-subagents.test.ts',
  'test/workflows/budgets.test.ts',
  'test/workflows/rate-limits.test.ts',
  'test/e2e/queued-before-worker.test.ts',
];

export default defineConfig({
  test: {
    // The root's global setup runs once for every project: one Temporal dev server for the run.
    globalSetup: ['testkit/global-setup.ts'],
    // The default summary, then the ten files that took longest.
    reporters: ['default', './testkit/slowest-files.ts'],
    // Two files at a time, even on two cores (vitest's default there is one): most of a test's time
    // is waiting (on the Temporal server, a worker process, a model's scripted latency). Measured on
    // 2 cores: 1,139 s against 1,853 s one at a time, with the same results. Three at a time is no
    // faster (1,868 s against 1,799 s, 2026-11-28): the suite is bound by CPU now, ~61 CPU-minutes.
    maxWorkers: 2,
    ...shared,
    projects: [
      { test: { name: 'default', include: ['test/**/*.test.{ts,tsx}'], ...shared } },
      {
        test: {
          name: 'postgres',
          include: onPostgres,
          env: { LOOM_TEST_STORE: 'postgres' },
          globalSetup: ['testkit/store/test-store-setup.ts'],
          ...shared,
        },
      },
    ],
  },
});
