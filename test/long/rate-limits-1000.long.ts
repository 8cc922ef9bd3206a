// The literal case of issue 34: a thousand sessions on one key of a provider that allows 60
// requests a minute. About 17 minutes; `npm run test:rate-limits`, not part of `npm test`.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { runRateLimitedBatch } from '../../testkit/model/rate-limited-batch.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv({
    config: { permission: { batch: 'allow' } },
    providers: (url) => ({ limited: { options: { baseURL: url, apiKey: 'key-limited' }, limit: { rpm: 60 } } }),
  });
  await env.worker();
});
afterAll(async () => {
  await env?.close();
});

it('runs 1000 tasks against 60 requests a minute: no task failed, no minute above 60', async () => {
  const { result, failed, server } = await runRateLimitedBatch(env, {
    model: 'limited/m',
    prefix: 'Thousand',
    tasks: 1000,
    concurrency: 50,
    window: { limit: 60, windowMs: 60_000, retryAfterSeconds: 1 },
  });
  expect(failed).toEqual([]);
  expect(result).toMatchObject({ status: 'completed', total: 1000, done: 1000, failed: 0 });
  expect(server.rejected).toEqual([]);
  expect(server.busiestWindow()).toBeLessThanOrEqual(60);
});
