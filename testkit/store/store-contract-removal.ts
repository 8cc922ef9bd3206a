import { describe, expect, it } from 'vitest';
import type { SessionStore } from '../../activities/store/store.js';
import type { FeedEntry } from '../../activities/store/feed-page.js';
import { batch, request, session, textPart, textsOf, userMessage } from './store-records.js';

const TIMEOUT_MS = 10_000;
const PROMPT_MS = 8_000;

/** What an entry is about, for the removals: `kind:id`. */
function label(entry: FeedEntry): string {
  switch (entry.kind) {
    case 'part-removed':
      return `part-removed:${entry.partID}`;
    case 'message-removed':
      return `message-removed:${entry.messageID}`;
    case 'session-removed':
      return `session-removed:${entry.session.id}`;
    default:
      return entry.kind;
  }
}

/** A session with two messages of two parts each, and a third message in another session. */
async function conversation(store: SessionStore): Promise<void> {
  await store.saveSession(session('ses_a', 1));
  for (const m of ['msg_1', 'msg_2']) {
    await store.saveMessage(userMessage(m, 'ses_a'));
    await store.savePart(textPart(`prt_${m}_a`, m, `${m} a`, 'ses_a'));
    await store.savePart(textPart(`prt_${m}_b`, m, `${m} b`, 'ses_a'));
  }
  await store.saveSession(session('ses_b', 2));
  await store.saveMessage(userMessage('msg_3', 'ses_b'));
  await store.savePart(textPart('prt_msg_3_a', 'msg_3', 'elsewhere', 'ses_b'));
}

/** `removeMessages` and `removeSession`: what is deleted, what is left, and what followers learn. */
export function describeRemovalContract(name: string, openStore: () => Promise<SessionStore>): void {
  describe(`${name} removing messages`, () => {
    it('deletes the messages and their parts, naming each in changes and the feed, parts first', async () => {
      const [worker, server] = await Promise.all([openStore(), openStore()]);
      await conversation(worker);
      const { cursor } = await server.changes('ses_a', 0);
      const start = (await server.feed(0)).cursor;
      // msg_3 is another session's, msg_9 nobody's: both are ignored.
      await worker.removeMessages('ses_a', ['msg_1', 'msg_3', 'msg_9']);

      expect((await server.messages('ses_a')).map((m) => m.info.id)).toEqual(['msg_2']);
      expect(await server.getMessage('msg_1')).toBeUndefined();
      expect(await server.parts('msg_1')).toEqual([]);
      expect(textsOf(await server.parts('msg_2'))).toEqual(['msg_2 a', 'msg_2 b']);
      expect(textsOf(await server.parts('msg_3'))).toEqual(['elsewhere']);

      const changes = await server.changes('ses_a', cursor);
      expect(changes.removedMessages).toEqual(['msg_1']);
      expect(changes.removedParts.sort()).toEqual(['prt_msg_1_a', 'prt_msg_1_b']);
      expect(changes.messages).toEqual([]);
      expect((await server.changes('ses_b', cursor)).removedMessages).toEqual([]);
      expect((await server.changes('ses_a', changes.cursor)).removedMessages).toEqual([]);

      const feed = await server.feed(start);
      expect(feed.entries.map(label)).toEqual([
        'part-removed:prt_msg_1_a',
        'part-removed:prt_msg_1_b',
        'message-removed:msg_1',
      ]);
      expect(feed.entries.at(-1)).toMatchObject({ kind: 'message-removed', messageID: 'msg_1', sessionID: 'ses_a' });
    });

    it('returns a message written again after its removal, and takes no revision when nothing is removed', async () => {
      const store = await openStore();
      await conversation(store);
      const { cursor } = await store.changes('ses_a', 0);
      // A session's cursor is for its own changes: the whole store's position comes from the feed.
      const start = (await store.feed(Number.MAX_SAFE_INTEGER)).cursor;
      await store.removeMessages('ses_a', []);
      await store.removeMessages('ses_a', ['msg_9']);
      expect((await store.feed(start)).entries).toEqual([]);
      await store.removeMessages('ses_a', ['msg_2']);
      await store.saveMessage(userMessage('msg_2', 'ses_a'));
      const changes = await store.changes('ses_a', cursor);
      expect(changes.removedMessages).toEqual(['msg_2']);
      expect(changes.messages.map((m) => m.id)).toEqual(['msg_2']);
      expect((await store.messages('ses_a')).map((m) => [m.info.id, m.parts.length])).toEqual([
        ['msg_1', 2],
        ['msg_2', 0],
      ]);
    });

    it('wakes a follower of the session in another store', async () => {
      const [worker, follower] = await Promise.all([openStore(), openStore()]);
      await conversation(worker);
      const { cursor } = await follower.changes('ses_a', 0);
      const started = Date.now();
      const waiting = follower.waitForChange('ses_a', cursor, { timeoutMs: TIMEOUT_MS });
      await worker.removeMessages('ses_a', ['msg_2']);
      await waiting;
      expect(Date.now() - started).toBeLessThan(PROMPT_MS);
    });
  });

  describe(`${name} removing a session`, () => {
    it('deletes the session and everything of it, leaving other sessions, children and batches alone', async () => {
      const [worker, server] = await Promise.all([openStore(), openStore()]);
      await conversation(worker);
      await worker.saveSession(session('ses_child', 3, 'ses_a'));
      await worker.saveTodos('ses_a', [{ id: '1', content: 'a todo', status: 'pending', priority: 'high' }]);
      await worker.saveTodos('ses_b', [{ id: '1', content: 'b todo', status: 'pending', priority: 'high' }]);
      await worker.recordFileRead('ses_a', '/project/a.ts', 5);
      await worker.recordFileRead('ses_b', '/project/a.ts', 6);
      await worker.savePermissionRequest({ ...request('per_a', 'pending', 'ses_a'), sessionID: 'ses_a' });
      await worker.savePermissionRequest({ ...request('per_b', 'pending', 'ses_b'), sessionID: 'ses_b' });
      await worker.addApprovedRules('ses_a', [{ permission: 'bash', pattern: 'ls *', action: 'allow' }]);
      await worker.addApprovedRules('ses_b', [{ permission: 'bash', pattern: 'ls *', action: 'allow' }]);
      await worker.savePrompt({ id: 'prm_a', sessionID: 'ses_a', text: 'do a', time: { created: 1 } });
      await worker.savePrompt({ id: 'prm_b', sessionID: 'ses_b', text: 'do b', time: { created: 1 } });
      await worker.createBatch(batch('bat_1', 1), [{ description: 'one', prompt: 'do one', session_id: 'ses_a' }]);
      await worker.removeMessages('ses_a', ['msg_1']);
      await worker.setSessionStatus('ses_a', 'failed', 9);
      const start = (await server.feed(0)).cursor;

      await worker.removeSession('ses_a');

      expect(await server.getSession('ses_a')).toBeUndefined();
      expect((await server.listSessions()).map((s) => s.id).sort()).toEqual(['ses_b', 'ses_child']);
      expect(await server.messages('ses_a')).toEqual([]);
      expect(await server.parts('msg_2')).toEqual([]);
      expect(await server.todos('ses_a')).toEqual([]);
      expect(await server.fileReadMtime('ses_a', '/project/a.ts')).toBeUndefined();
      expect(await server.getPermissionRequest('per_a')).toBeUndefined();
      expect(await server.approvedRules('ses_a')).toEqual([]);
      expect(await server.getPrompt('prm_a')).toBeUndefined();
      const changes = await server.changes('ses_a', 0);
      expect(changes).toMatchObject({ messages: [], parts: [], removedParts: [], removedMessages: [] });

      // The other session keeps everything; the child is the caller's to delete; the batch keeps its task.
      expect((await server.messages('ses_b')).map((m) => m.info.id)).toEqual(['msg_3']);
      expect((await server.todos('ses_b')).map((t) => t.content)).toEqual(['b todo']);
      expect(await server.fileReadMtime('ses_b', '/project/a.ts')).toBe(6);
      expect(await server.getPermissionRequest('per_b')).toBeDefined();
      expect(await server.approvedRules('ses_b')).toHaveLength(1);
      expect(await server.getPrompt('prm_b')).toBeDefined();
      expect(await server.getSession('ses_child')).toMatchObject({ parentID: 'ses_a' });
      expect((await server.batchTask('bat_1', 0))?.task.session_id).toBe('ses_a');

      const feed = await server.feed(start);
      expect(feed.entries.map(label)).toEqual(['session-removed:ses_a']);
      expect(feed.entries[0]).toMatchObject({
        kind: 'session-removed',
        session: { id: 'ses_a', status: 'failed', title: 'Session ses_a' },
      });
    });

    it('ignores an unknown session, and removes a session again written after its removal', async () => {
      const store = await openStore();
      const { cursor } = await store.feed(Number.MAX_SAFE_INTEGER);
      await store.removeSession('ses_missing');
      expect((await store.feed(cursor)).entries).toEqual([]);
      await store.saveSession(session('ses_a', 1));
      await store.removeSession('ses_a');
      await store.saveSession(session('ses_a', 2));
      expect(await store.getSession('ses_a')).toEqual(session('ses_a', 2));
      await store.removeSession('ses_a');
      expect(await store.getSession('ses_a')).toBeUndefined();
      // Each row comes once, at its latest state: the session's tombstone.
      expect((await store.feed(cursor)).entries.map(label)).toEqual(['session-removed:ses_a']);
    });

    it('wakes a follower of the session and of the whole store in another store', async () => {
      const [worker, follower] = await Promise.all([openStore(), openStore()]);
      await conversation(worker);
      const { cursor } = await follower.changes('ses_a', 0);
      const started = Date.now();
      const waiting = Promise.all([
        follower.waitForChange('ses_a', cursor, { timeoutMs: TIMEOUT_MS }),
        follower.waitForFeed(cursor, { timeoutMs: TIMEOUT_MS }),
      ]);
      await worker.removeSession('ses_a');
      await waiting;
      expect(Date.now() - started).toBeLessThan(PROMPT_MS);
    });
  });
}
