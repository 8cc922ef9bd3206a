import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { runRateLimitedBatch } from '../../testkit/model/rate-limited-batch.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv({
    config: { permission: { batch: 'allow' } },
    // Two keys on one server: sessions share a gate exactly when they share a key.
    providers: (url) => ({
      limited: { options: { baseURL: url, apiKey: 'key-limited' }, limit: { rpm: 285 } },
      unlimited: { options: { baseURL: url, apiKey: 'key-unlimited' } },
    }),
  });
  await env.worker();
});
afterAll(async () => {
  await env?.close();
});

describe('provider rate limits shared by every session', () => {
  it('keeps a batch under the configured rpm in every sliding window: no 429, no task failed', async () => {
    // The server allows 300 rpm, scaled down: 60 requests in any 12 s. Loom is told 285 rpm: the scripted
    // server runs in this busy test process, and the arrival times it notes lag with its event loop (the
    // literal 60-a-minute run, with a whole minute's headroom, is `npm run test:rate-limits`).
    const { result, failed, server } = await runRateLimitedBatch(env, {
      model: 'limited/m',
      prefix: 'Limited',
      tasks: 120,
      concurrency: 40,
      window: { limit: 60, windowMs: 12_000, retryAfterSeconds: 1 },
    });
    expect(failed).toEqual([]);
    expect(result).toMatchObject({ status: 'completed', total: 120, done: 120, failed: 0 });
    expect(server.admitted).toHaveLength(120);
    expect(server.rejected).toEqual([]);
    expect(server.busiestWindow()).toBeLessThanOrEqual(60);
  });

  it('with no limit configured, a 429 with retry-after holds every session back until it ends; no task failed', async () => {
    const { result, failed, server } = await runRateLimitedBatch(env, {
      model: 'unlimited/m',
      prefix: 'Unlimited',
      tasks: 60,
      concurrency: 30,
      window: { limit: 20, windowMs: 2_000, retryAfterSeconds: 1 },
    });
    expect(failed).toEqual([]);
    expect(result).toMatchObject({ status: 'completed', total: 60, done: 60, failed: 0 });
    expect(server.rejected.length).toBeGreaterThan(0);
    expect(server.busiestWindow()).toBeLessThanOrEqual(20);
    // Requests already on their way when a block began may still arrive: the server notes them after
    // reading their body, in a process as busy as the worker it shares. So the count starts half a
    // second into each one-second block, and a few such stragglers are allowed; sessions sending on
    // their own through a block would be most of the 30 running.
    const arrivals = [...server.admitted, ...server.rejected];
    const duringBlocks = arrivals.filter((at) => server.rejected.some((t) => at > t + 500 && at < t + 950));
    expect(duringBlocks.length).toBeLessThanOrEqual(4);
    // With no limit to space them, the sessions a block held back all send when it ends (a herd the
    // server answers with a few more 429s): bounded, where sessions retrying each on its own are not.
    expect(server.rejected.length + server.admitted.length).toBeLessThan(60 * 3);
  });
});
