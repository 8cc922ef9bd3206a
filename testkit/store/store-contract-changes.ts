import { describe, expect, it } from 'vitest';
import type { Message } from '../../core/records/message.js';
import type { TextPart } from '../../core/records/part.js';
import type { SessionStore } from '../../activities/store/store.js';
import { request, session } from './store-records.js';

/**
 * Generous on purpose: the machines running tests are shared and slow at times. A wake-up that
 * works takes milliseconds (PostgreSQL) or one poll (~150 ms, SQLite across processes); one that
 * does not work waits out this timeout.
 */
const TIMEOUT_MS = 10_000;
const PROMPT_MS = 8_000;

const message = (id: string, sessionID: string): Message => ({
  id,
  sessionID,
  role: 'user',
  agent: 'build',
  model: 'openai/gpt-4o',
  time: { created: 1 },
});
const part = (id: string, messageID: string, text: string, sessionID: string): TextPart => ({
  id,
  sessionID,
  messageID,
  type: 'text',
  text,
});
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long `wait` takes to resolve. */
async function timed(wait: Promise<void>): Promise<number> {
  const start = Date.now();
  await wait;
  return Date.now() - start;
}

/** A wait, and whether it has resolved yet. */
function watched(wait: Promise<void>): { woke: () => boolean; done: Promise<void> } {
  let woke = false;
  const done = wait.then(() => {
    woke = true;
  });
  return { woke: () => woke, done };
}

/** `waitForChange`: followers wake on their session's writes, from this store or another. */
export function describeChangeFeedContract(name: string, openStore: () => Promise<SessionStore>): void {
  describe(`${name} waiting for changes`, () => {
    it('wakes a waiter promptly when another store on the same database writes to its session', async () => {
      const [follower, worker] = await Promise.all([openStore(), openStore()]);
      await worker.saveMessage(message('msg_1', 'ses_a'));
      const { cursor } = await follower.changes('ses_a', 0);
      const waiting = watched(follower.waitForChange('ses_a', cursor, { timeoutMs: TIMEOUT_MS }));
      await delay(400);
      expect(waiting.woke()).toBe(false);
      await worker.savePart(part('prt_1', 'msg_1', 'new', 'ses_a'));
      expect(await timed(waiting.done)).toBeLessThan(PROMPT_MS);
      expect((await follower.changes('ses_a', cursor)).parts.map((p) => (p as TextPart).text)).toEqual(['new']);
    });

    it('wakes a waiter on writes through the same store (a worker in the CLI process)', async () => {
      const store = await openStore();
      const { cursor } = await store.changes('ses_a', 0);
      const waiting = watched(store.waitForChange('ses_a', cursor, { timeoutMs: TIMEOUT_MS }));
      await delay(400);
      expect(waiting.woke()).toBe(false);
      await store.saveMessage(message('msg_1', 'ses_a'));
      expect(await timed(waiting.done)).toBeLessThan(PROMPT_MS);
    });

    it("wakes a waiter when another store changes the session's status or writes a permission request of it", async () => {
      const [follower, worker] = await Promise.all([openStore(), openStore()]);
      await worker.saveSession(session('ses_a', 1));
      for (const write of [
        () => worker.setSessionStatus('ses_a', 'busy', 2),
        () => worker.savePermissionRequest(request('per_1', 'pending', 'ses_a')),
        () => worker.savePermissionRequest({ ...request('per_1', 'approved', 'ses_a'), reply: { reply: 'once' } }),
      ]) {
        const { cursor } = await follower.changes('ses_a', Number.MAX_SAFE_INTEGER);
        const waiting = watched(follower.waitForChange('ses_a', cursor, { timeoutMs: TIMEOUT_MS }));
        await delay(300);
        expect(waiting.woke()).toBe(false);
        await write();
        expect(await timed(waiting.done)).toBeLessThan(PROMPT_MS);
      }
    });

    it('returns at once when the session already changed after the cursor (written between changes and the wait)', async () => {
      const [follower, worker] = await Promise.all([openStore(), openStore()]);
      const { cursor } = await follower.changes('ses_a', 0);
      await worker.saveMessage(message('msg_1', 'ses_a'));
      expect(await timed(follower.waitForChange('ses_a', cursor, { timeoutMs: TIMEOUT_MS }))).toBeLessThan(PROMPT_MS);
    });

    it('does not wake for writes to other sessions: it waits out its timeout', async () => {
      const [follower, worker] = await Promise.all([openStore(), openStore()]);
      await worker.saveMessage(message('msg_a', 'ses_a'));
      const { cursor } = await follower.changes('ses_a', 0);
      const waiting = timed(follower.waitForChange('ses_a', cursor, { timeoutMs: 1_500 }));
      for (let i = 0; i < 5; i++) {
        await worker.savePart(part(`prt_b${i}`, 'msg_b', `b${i}`, 'ses_b'));
        await follower.savePart(part(`prt_c${i}`, 'msg_c', `c${i}`, 'ses_c'));
        await delay(100);
      }
      // Timers never fire early; a little slack for clocks that round.
      expect(await waiting).toBeGreaterThanOrEqual(1_450);
    });

    it('stops waiting when its signal aborts, or at once when it already has', async () => {
      const store = await openStore();
      const { cursor } = await store.changes('ses_a', 0);
      const aborted = new AbortController();
      aborted.abort();
      expect(
        await timed(store.waitForChange('ses_a', cursor, { timeoutMs: TIMEOUT_MS, signal: aborted.signal })),
      ).toBeLessThan(PROMPT_MS);

      const later = new AbortController();
      const waiting = watched(store.waitForChange('ses_a', cursor, { timeoutMs: TIMEOUT_MS, signal: later.signal }));
      await delay(300);
      expect(waiting.woke()).toBe(false);
      later.abort();
      expect(await timed(waiting.done)).toBeLessThan(PROMPT_MS);
    });

    it('lets its waiters go when the store closes', async () => {
      const store = await openStore();
      const { cursor } = await store.changes('ses_a', 0);
      const waiting = timed(store.waitForChange('ses_a', cursor, { timeoutMs: TIMEOUT_MS }));
      await delay(200);
      await store.close();
      expect(await waiting).toBeLessThan(PROMPT_MS);
    });
  });
}
