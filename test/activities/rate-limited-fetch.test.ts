import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { duration, exhaustedUntil, retryAfter } from '../../activities/model/rate-limit-headers.js';
import { RateGates, RateLimitWaitError } from '../../activities/model/rate-gates.js';
import { rateLimitedFetch } from '../../activities/model/rate-limited-fetch.js';
import { SqliteSessionStore } from '../../activities/store/sqlite/store.js';
import { PROJECT_ROOT } from '../../worker/bundle.js';
import { waitUntil } from '../../testkit/wait.js';
import type { RateLimitConfig } from '../../core/config/config.js';

type Answer = { status: number; headers?: Record<string, string>; body?: string };

let dir: string;
let file: string;
const cleanups: (() => Promise<void>)[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loom-rate-'));
  file = join(dir, 'loom.db');
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** A real HTTP server answering from `answer`, recording when each request arrived. */
async function server(answer: (n: number) => Answer) {
  const arrivals: number[] = [];
  const srv = http.createServer((req, res) => {
    arrivals.push(Date.now());
    req.resume();
    req.on('end', () => {
      const { status, headers, body } = answer(arrivals.length);
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(body ?? JSON.stringify({ ok: status < 400 }));
    });
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => srv.close(() => resolve())));
  return { url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}/v1/chat/completions`, arrivals };
}

/** A worker's fetch for one provider key, on its own store instance (as another worker process would be). */
function workerFetch(limits: { provider?: RateLimitConfig; model?: RateLimitConfig } = {}, maxWaitMs?: number) {
  const store = new SqliteSessionStore(file);
  cleanups.push(() => store.close());
  const gates = new RateGates(store, { providerID: 'p', modelID: 'm', apiKey: 'sk-1', baseURL: 'http://x' }, limits);
  return { store, gates, fetch: rateLimitedFetch(gates, globalThis.fetch, maxWaitMs) };
}

const post = (fetch: typeof globalThis.fetch, url: string, signal?: AbortSignal) =>
  fetch(url, { method: 'POST', body: '{"model":"m"}', headers: { 'content-type': 'application/json' }, signal });

describe('rate-limit headers', () => {
  it('reads retry-after, retry-after-ms, and OpenAI and Anthropic "none left" headers', () => {
    const now = 1_000_000;
    expect(retryAfter(new Headers({ 'retry-after': '2' }), now)).toBe(now + 2_000);
    expect(retryAfter(new Headers({ 'retry-after-ms': '150', 'retry-after': '9' }), now)).toBe(now + 150);
    expect(retryAfter(new Headers({ 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }), now)).toBe(
      Date.parse('2015-10-21T07:28:00Z'),
    );
    expect(retryAfter(new Headers({}), now)).toBeUndefined();
    expect(duration('6m0s')).toBe(360_000);
    expect(duration('1h2m3.5s')).toBe(3_723_500);
    expect(duration('20ms')).toBe(20);
    expect(duration('soon')).toBeUndefined();
    const openai = { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '1s' };
    expect(exhaustedUntil(new Headers(openai), now)).toBe(now + 1_000);
    expect(exhaustedUntil(new Headers({ ...openai, 'x-ratelimit-remaining-requests': '3' }), now)).toBeUndefined();
    const anthropic = {
      'anthropic-ratelimit-requests-remaining': '0',
      'anthropic-ratelimit-requests-reset': '2030-01-01T00:00:05Z',
    };
    expect(exhaustedUntil(new Headers(anthropic), now)).toBe(Date.parse('2030-01-01T00:00:05Z'));
  });
});

describe('rateLimitedFetch', () => {
  it('spaces requests of every worker on the key by its rpm, with 2% headroom', async () => {
    const { url, arrivals } = await server(() => ({ status: 200 }));
    const workers = [workerFetch({ provider: { rpm: 600 } }), workerFetch({ provider: { rpm: 600 } })];
    const started = Date.now();
    await Promise.all(Array.from({ length: 12 }, (_, i) => post(workers[i % 2].fetch, url)));
    // The k-th request's slot is k intervals after the first, which is no earlier than the start.
    const sorted = arrivals.toSorted((a, b) => a - b);
    sorted.forEach((at, k) => expect(at - started).toBeGreaterThanOrEqual(k * 102 - 1));
  });

  it('keeps a model to its own rpm on top of the key', async () => {
    const { url, arrivals } = await server(() => ({ status: 200 }));
    const { fetch } = workerFetch({ provider: { rpm: 6000 }, model: { rpm: 300 } });
    const started = Date.now();
    await Promise.all(Array.from({ length: 4 }, () => post(fetch, url)));
    arrivals.toSorted((a, b) => a - b).forEach((at, k) => expect(at - started).toBeGreaterThanOrEqual(k * 204 - 1));
  });

  it('waits out a 429 and sends the same request again, and holds back every other worker on the key meanwhile', async () => {
    const { url, arrivals } = await server((n) =>
      n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 },
    );
    const first = workerFetch();
    const other = workerFetch();
    const started = Date.now();
    const answer = await post(first.fetch, url);
    expect(answer.status).toBe(200);
    expect(arrivals[1] - arrivals[0]).toBeGreaterThanOrEqual(990);
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    // The block is kept in the store, whoever reads it.
    await first.gates.block(Date.now() + 800);
    const before = Date.now();
    expect((await post(other.fetch, url)).status).toBe(200);
    expect(arrivals[2] - before).toBeGreaterThanOrEqual(780);
  });

  it('backs off 1 s then 2 s on 429s without a retry-after, and starts again from 1 s after a success', async () => {
    const { url, arrivals } = await server((n) => (n <= 2 ? { status: 429 } : { status: 200 }));
    const { fetch, store, gates } = workerFetch();
    expect((await post(fetch, url)).status).toBe(200);
    expect(arrivals[1] - arrivals[0]).toBeGreaterThanOrEqual(990);
    expect(arrivals[2] - arrivals[1]).toBeGreaterThanOrEqual(1_990);
    expect((await store.rateGate(gates.key))?.strikes).toBe(0);
  });

  it('gives back at once a 429 for an account out of credit, and one whose wait is past its bound', async () => {
    const quota = JSON.stringify({ error: { code: 'insufficient_quota', message: 'You exceeded your current quota' } });
    const broke = await server(() => ({ status: 429, body: quota }));
    expect((await post(workerFetch().fetch, broke.url)).status).toBe(429);
    expect(broke.arrivals).toHaveLength(1);

    const busy = await server(() => ({ status: 429, headers: { 'retry-after': '30' } }));
    expect((await post(workerFetch({}, 5_000).fetch, busy.url)).status).toBe(429);
    expect(busy.arrivals).toHaveLength(1);
    // The block stays for everyone; a request that cannot wait for it fails without being sent.
    await expect(post(workerFetch({}, 5_000).fetch, busy.url)).rejects.toBeInstanceOf(RateLimitWaitError);
    expect(busy.arrivals).toHaveLength(1);
  });

  it('blocks the key when a success says none are left, until the reset', async () => {
    const { url, arrivals } = await server((n) =>
      n === 1
        ? { status: 200, headers: { 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '1s' } }
        : { status: 200 },
    );
    const { fetch } = workerFetch();
    await post(fetch, url);
    await post(fetch, url);
    expect(arrivals[1] - arrivals[0]).toBeGreaterThanOrEqual(950);
  });

  it('runs the token clock: a request waits until the tokens of earlier answers are paid for', async () => {
    const { url, arrivals } = await server(() => ({ status: 200 }));
    const { fetch, gates } = workerFetch({ provider: { tpm: 60_000 } });
    await post(fetch, url);
    await gates.spend(1_000); // 1,000 tokens at 1,000 a second, with headroom: 1.02 s
    await post(fetch, url);
    expect(arrivals[1] - arrivals[0]).toBeGreaterThanOrEqual(1_000);
  });

  it('stops waiting at once when the request is aborted (the activity is cancelled)', async () => {
    const { url, arrivals } = await server(() => ({ status: 200 }));
    const { fetch, gates } = workerFetch();
    await gates.block(Date.now() + 30_000);
    const controller = new AbortController();
    const sending = post(fetch, url, controller.signal);
    setTimeout(() => controller.abort(new Error('cancelled')), 200);
    const started = Date.now();
    await expect(sending).rejects.toThrow('cancelled');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(arrivals).toHaveLength(0);
  });

  it('keeps the block and the slots of a worker killed mid-wait: the next worker honours them', async () => {
    const { url, arrivals } = await server((n) =>
      n === 1 ? { status: 429, headers: { 'retry-after': '3' } } : { status: 200 },
    );
    const caller = spawn(
      process.execPath,
      ['--import', 'tsx', 'testkit/model/rate-limited-caller.ts', file, url, '60'],
      {
        cwd: PROJECT_ROOT,
        stdio: 'ignore',
      },
    );
    const exited = new Promise((resolve) => caller.once('exit', resolve));
    cleanups.push(async () => void caller.kill('SIGKILL'));
    const { store, gates, fetch } = workerFetch({ provider: { rpm: 60 } });
    // Its 429 blocked the key, and it took the first slot after the block, and waits for it.
    await waitUntil(async () => {
      const state = await store.rateGate(gates.key);
      return state !== undefined && state.blockedUntil > 0 && state.nextAt > state.blockedUntil;
    }, 20_000);
    caller.kill('SIGKILL');
    await exited;
    const { blockedUntil, nextAt } = (await store.rateGate(gates.key))!;
    expect(await post(fetch, url).then((r) => r.status)).toBe(200);
    expect(arrivals).toHaveLength(2);
    expect(arrivals[1]).toBeGreaterThanOrEqual(blockedUntil);
    // The dead worker's slot is not handed out again: the new worker's comes after it.
    expect(arrivals[1]).toBeGreaterThanOrEqual(nextAt);
  });
});
