import { describe, expect, it } from 'vitest';
import type { SessionStore } from '../../activities/store/store.js';
import type { FeedEntry } from '../../activities/store/feed-page.js';
import { batch, request, session, textPart, userMessage } from './store-records.js';

const TIMEOUT_MS = 10_000;
const PROMPT_MS = 8_000;

/** What an entry is about, for comparing feeds: `kind:id`. */
function label(entry: FeedEntry): string {
  switch (entry.kind) {
    case 'session':
      return `session:${entry.session.id}`;
    case 'message':
      return `message:${entry.message.id}`;
    case 'part':
      return `part:${entry.part.id}`;
    case 'part-removed':
      return `part-removed:${entry.partID}`;
    case 'message-removed':
      return `message-removed:${entry.messageID}`;
    case 'session-removed':
      return `session-removed:${entry.session.id}`;
    case 'permission':
      return `permission:${entry.request.id}:${entry.request.status}`;
    case 'batch':
      return `batch:${entry.batch.id}`;
  }
}

/** Reads the whole feed after `since`, page by page. */
async function readAll(
  store: SessionStore,
  since: number,
  limit?: number,
): Promise<{ cursor: number; entries: FeedEntry[]; pages: number }> {
  const entries: FeedEntry[] = [];
  let cursor = since;
  for (let pages = 1; ; pages++) {
    const page = await store.feed(cursor, limit);
    entries.push(...page.entries);
    expect(page.cursor).toBeGreaterThanOrEqual(cursor);
    cursor = page.cursor;
    if (!page.more) return { cursor, entries, pages };
  }
}

/** `feed` and `waitForFeed`: every session's changes in one stream, what `loom serve` sends as events. */
export function describeFeedContract(name: string, openStore: () => Promise<SessionStore>): void {
  describe(`${name} feed of every change`, () => {
    it('returns sessions, messages, parts, permission requests, batches and removed parts in the order they were written', async () => {
      const [worker, server] = await Promise.all([openStore(), openStore()]);
      const start = (await server.feed(0)).cursor;
      await worker.saveSession(session('ses_a', 1));
      await worker.saveMessage(userMessage('msg_1', 'ses_a'));
      await worker.savePart(textPart('prt_1', 'msg_1', 'hello', 'ses_a'));
      await worker.savePermissionRequest(request('per_1', 'pending', 'ses_a'));
      await worker.createBatch(batch('bat_1', 1), [{ description: 'one', prompt: 'do one' }]);
      await worker.saveSession(session('ses_b', 2));
      const first = await server.feed(start);
      expect(first.more).toBe(false);
      expect(first.entries.map(label)).toEqual([
        'session:ses_a',
        'message:msg_1',
        'part:prt_1',
        'permission:per_1:pending',
        'batch:bat_1',
        'session:ses_b',
      ]);
      const revs = first.entries.map((entry) => entry.rev);
      expect([...revs].sort((a, b) => a - b)).toEqual(revs);
      expect(new Set(revs).size).toBe(revs.length);
      expect(Math.max(...revs)).toBeLessThanOrEqual(first.cursor);

      // Rewritten rows come again, at their latest state, and nothing older does.
      await worker.updatePart('prt_1', (part) => ({ ...part, text: 'hello, world' }));
      await worker.setSessionStatus('ses_a', 'busy', 3);
      await worker.savePermissionRequest({ ...request('per_1', 'approved', 'ses_a'), reply: { reply: 'once' } });
      await worker.saveBatchOutcomes('bat_1', [{ index: 0, status: 'completed', attempts: 1, text: 'done' }]);
      await worker.deleteParts('msg_1');
      const second = await server.feed(first.cursor);
      expect(second.entries.map(label)).toEqual([
        'session:ses_a',
        'permission:per_1:approved',
        'batch:bat_1',
        'part-removed:prt_1',
      ]);
      const removed = second.entries.at(-1);
      expect(removed).toMatchObject({ kind: 'part-removed', partID: 'prt_1', messageID: 'msg_1', sessionID: 'ses_a' });
      expect(second.entries[0]).toMatchObject({ kind: 'session', session: { id: 'ses_a', status: 'busy' } });
      expect(await server.feed(second.cursor)).toEqual({ cursor: second.cursor, entries: [], more: false });
    });

    it('pages through a long feed without losing or repeating a row', async () => {
      const store = await openStore();
      const start = (await store.feed(0)).cursor;
      await store.saveSession(session('ses_a', 1));
      for (let i = 0; i < 9; i++) await store.savePart(textPart(`prt_${i}`, 'msg_1', `p${i}`, 'ses_a'));
      await store.saveBatch(batch('bat_1', 1));
      const all = await readAll(store, start, 4);
      expect(all.pages).toBe(3);
      expect(all.entries.map(label)).toEqual([
        'session:ses_a',
        ...Array.from({ length: 9 }, (_, i) => `part:prt_${i}`),
        'batch:bat_1',
      ]);
      expect(all.cursor).toBe((await store.feed(0)).cursor);
    });

    it('cuts the page when one table alone holds more rows than fit', async () => {
      const store = await openStore();
      const start = (await store.feed(0)).cursor;
      for (let i = 0; i < 8; i++) await store.savePart(textPart(`prt_${i}`, 'msg_1', `p${i}`, 'ses_a'));
      const first = await store.feed(start, 4);
      expect(first).toMatchObject({ more: true, entries: Array.from({ length: 4 }, () => expect.anything()) });
      const all = await readAll(store, start, 4);
      expect(all.entries.map(label)).toEqual(Array.from({ length: 8 }, (_, i) => `part:prt_${i}`));
    });

    it('never skips a row written by another store while a reader follows the cursor', async () => {
      const [writerA, writerB, reader] = await Promise.all([openStore(), openStore(), openStore()]);
      let cursor = (await reader.feed(0)).cursor;
      const seen = new Map<string, number>();
      let writing = true;
      const follow = (async () => {
        while (writing) {
          const page = await reader.feed(cursor, 7);
          for (const entry of page.entries) seen.set(label(entry), (seen.get(label(entry)) ?? 0) + 1);
          cursor = page.cursor;
        }
      })();
      await Promise.all(
        [writerA, writerB].map(async (writer, w) => {
          for (let i = 0; i < 25; i++) await writer.savePart(textPart(`prt_${w}_${i}`, `msg_${w}`, `${i}`, `ses_${w}`));
        }),
      );
      writing = false;
      await follow;
      const rest = await readAll(reader, cursor);
      for (const entry of rest.entries) seen.set(label(entry), (seen.get(label(entry)) ?? 0) + 1);
      expect(seen.size).toBe(50);
      expect([...seen.values()].every((count) => count === 1)).toBe(true);
    });

    it('wakes a whole-store waiter on a write to any session, a request or a batch, from another store', async () => {
      const [server, worker] = await Promise.all([openStore(), openStore()]);
      for (const write of [
        () => worker.saveSession(session('ses_new', 1)),
        () => worker.savePermissionRequest(request('per_9', 'pending', 'ses_new')),
        () => worker.saveBatch(batch('bat_9', 1)),
        () => worker.savePart(textPart('prt_9', 'msg_9', 'x', 'ses_other')),
      ]) {
        const { cursor } = await server.feed(Number.MAX_SAFE_INTEGER);
        let woke = false;
        const waiting = server.waitForFeed(cursor, { timeoutMs: TIMEOUT_MS }).then(() => (woke = true));
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(woke).toBe(false);
        const started = Date.now();
        await write();
        await waiting;
        expect(Date.now() - started).toBeLessThan(PROMPT_MS);
        expect((await server.feed(cursor)).entries.length).toBe(1);
      }
    });

    it('returns at once when something was written after the cursor, and ends a wait when its signal aborts', async () => {
      const store = await openStore();
      const { cursor } = await store.feed(Number.MAX_SAFE_INTEGER);
      await store.saveSession(session('ses_a', 1));
      let started = Date.now();
      await store.waitForFeed(cursor, { timeoutMs: TIMEOUT_MS });
      expect(Date.now() - started).toBeLessThan(PROMPT_MS);
      const abort = new AbortController();
      const latest = (await store.feed(cursor)).cursor;
      started = Date.now();
      setTimeout(() => abort.abort(), 200);
      await store.waitForFeed(latest, { timeoutMs: TIMEOUT_MS, signal: abort.signal });
      expect(Date.now() - started).toBeLessThan(PROMPT_MS);
    });
  });
}
