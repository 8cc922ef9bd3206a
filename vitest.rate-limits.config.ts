import { defineConfig } from 'vitest/config';

/** `npm run test:rate-limits`: the long rate-limit run, kept out of `npm test` (see test/long/). */
export default defineConfig({
  test: {
    globalSetup: ['testkit/global-setup.ts'],
    include: ['test/long/**/*.long.ts'],
    pool: 'forks',
    testTimeout: 30 * 60_000,
    hookTimeout: 120_000,
  },
});
