import { afterEach, describe, expect, it } from 'vitest';
import type { TextPart } from '../../core/records/part.js';
import { type SessionStore } from '../../activities/store/store.js';
import { NotFoundError } from '../../activities/store/not-found-error.js';
import { describeBudgetContract } from './store-contract-budgets.js';
import { describeChangeFeedContract } from './store-contract-changes.js';
import { describeFeedContract } from './store-contract-feed.js';
import { describeRecordsContract } from './store-contract-records.js';
import { describeRateLimitContract } from './store-contract-rate-limits.js';
import { describeRemovalContract } from './store-contract-removal.js';
import { describeConfigTrustContract, describeWorkspaceConfigContract } from './store-contract-workspace.js';
import { session, textPart, textsOf, userMessage } from './store-records.js';

export type OpenStore = () => Promise<SessionStore>;

/**
 * The behaviour every session store must have, run unchanged against each backend. `open` opens
 * a new store instance on the test's database (the caller gives each test a fresh one): two calls
 * in one test are two processes (a worker and a CLI, or workers on two machines) sharing it.
 */
export function describeStoreContract(name: string, open: OpenStore): void {
  const opened: SessionStore[] = [];
  async function openStore(): Promise<SessionStore> {
    const store = await open();
    opened.push(store);
    return store;
  }

  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });

  describe(`${name} sessions`, () => {
    it('saves and reads a session', async () => {
      const store = await openStore();
      await store.saveSession(session('ses_a', 1));
      expect(await store.getSession('ses_a')).toEqual(session('ses_a', 1));
      expect(await store.getSession('ses_missing')).toBeUndefined();
    });

    it('lists sessions most recently updated first, and leaves out children with roots', async () => {
      const store = await openStore();
      await store.saveSession(session('ses_old', 1));
      await store.saveSession(session('ses_new', 3));
      await store.saveSession(session('ses_child', 2, 'ses_old'));
      expect((await store.listSessions()).map((s) => s.id)).toEqual(['ses_new', 'ses_child', 'ses_old']);
      expect((await store.listSessions({ roots: true })).map((s) => s.id)).toEqual(['ses_new', 'ses_old']);
      expect((await store.listSessions({ limit: 1 })).map((s) => s.id)).toEqual(['ses_new']);
    });

    it("lists only one project folder's sessions with directory, the limit counting those", async () => {
      const store = await openStore();
      const inFolder = (id: string, updated: number, directory: string, parentID?: string) => ({
        ...session(id, updated, parentID),
        directory,
      });
      await store.saveSession(inFolder('ses_here_old', 1, '/work/here'));
      await store.saveSession(inFolder('ses_there', 2, '/work/there'));
      await store.saveSession(inFolder('ses_here_child', 3, '/work/here', 'ses_here_old'));
      await store.saveSession(inFolder('ses_here_new', 4, '/work/here'));
      await store.saveSession(inFolder('ses_there_newer', 5, '/work/there'));
      await store.saveSession(inFolder('ses_prefix', 6, '/work/here2'));
      expect((await store.listSessions({ directory: '/work/here' })).map((s) => s.id)).toEqual([
        'ses_here_new',
        'ses_here_child',
        'ses_here_old',
      ]);
      expect((await store.listSessions({ directory: '/work/here', roots: true })).map((s) => s.id)).toEqual([
        'ses_here_new',
        'ses_here_old',
      ]);
      expect((await store.listSessions({ directory: '/work/here', roots: true, limit: 2 })).map((s) => s.id)).toEqual([
        'ses_here_new',
        'ses_here_old',
      ]);
      expect((await store.listSessions({ directory: '/work/there', limit: 1 })).map((s) => s.id)).toEqual([
        'ses_there_newer',
      ]);
      expect(await store.listSessions({ directory: '/work/nowhere' })).toEqual([]);
      expect(await store.listSessions({ roots: true })).toHaveLength(5);
    });

    it("lists a session's children", async () => {
      const store = await openStore();
      await store.saveSession(session('ses_parent', 1));
      await store.saveSession(session('ses_c1', 2, 'ses_parent'));
      await store.saveSession(session('ses_c2', 3, 'ses_parent'));
      await store.saveSession(session('ses_other', 4, 'ses_elsewhere'));
      expect((await store.children('ses_parent')).map((s) => s.id)).toEqual(['ses_c1', 'ses_c2']);
      expect(await store.children('ses_c1')).toEqual([]);
    });

    it('sets the status and the updated time, which moves the session to the top of the list', async () => {
      const store = await openStore();
      await store.saveSession(session('ses_a', 1));
      await store.saveSession(session('ses_b', 2));
      await store.setSessionStatus('ses_a', 'busy', 10);
      expect(await store.getSession('ses_a')).toMatchObject({ status: 'busy', time: { created: 1, updated: 10 } });
      expect((await store.listSessions()).map((s) => s.id)).toEqual(['ses_a', 'ses_b']);
    });

    it('refuses to set the status of an unknown session, naming it', async () => {
      const store = await openStore();
      await expect(store.setSessionStatus('ses_nope', 'idle', 1)).rejects.toThrow(NotFoundError);
      await expect(store.setSessionStatus('ses_nope', 'idle', 1)).rejects.toThrow('Unknown session "ses_nope"');
    });

    it('refuses an invalid session instead of storing it', async () => {
      const store = await openStore();
      await expect(store.saveSession({ ...session('ses_a', 1), status: 'done' as never })).rejects.toThrow();
      expect(await store.getSession('ses_a')).toBeUndefined();
    });
  });

  describe(`${name} messages and parts`, () => {
    it('returns messages with their parts in id order, whatever the order they were saved in', async () => {
      const store = await openStore();
      await store.saveMessage(userMessage('msg_2'));
      await store.saveMessage(userMessage('msg_1'));
      await store.saveMessage(userMessage('msg_other', 'ses_b'));
      await store.savePart(textPart('prt_2b', 'msg_2', 'second b'));
      await store.savePart(textPart('prt_1a', 'msg_1', 'first a'));
      await store.savePart(textPart('prt_2a', 'msg_2', 'second a'));
      const messages = await store.messages('ses_a');
      expect(messages.map((m) => [m.info.id, textsOf(m.parts)])).toEqual([
        ['msg_1', ['first a']],
        ['msg_2', ['second a', 'second b']],
      ]);
      expect(textsOf(await store.parts('msg_2'))).toEqual(['second a', 'second b']);
      expect(await store.getMessage('msg_1')).toEqual(userMessage('msg_1'));
    });

    it('keeps one row with the latest content when the same message or part is saved twice', async () => {
      const store = await openStore();
      await store.saveMessage(userMessage('msg_1'));
      await store.saveMessage({ ...userMessage('msg_1'), agent: 'plan' });
      await store.savePart(textPart('prt_1', 'msg_1', 'draft'));
      await store.savePart(textPart('prt_1', 'msg_1', 'final'));
      const messages = await store.messages('ses_a');
      expect(messages).toHaveLength(1);
      expect(messages[0].info.agent).toBe('plan');
      expect(textsOf(messages[0].parts)).toEqual(['final']);
      expect(await store.getPart('prt_1')).toEqual(textPart('prt_1', 'msg_1', 'final'));
    });

    it('updates a part in place and returns the new version', async () => {
      const store = await openStore();
      await store.savePart(textPart('prt_1', 'msg_1', 'hello'));
      const updated = await store.updatePart('prt_1', (part) => ({
        ...part,
        text: `${(part as TextPart).text} world`,
      }));
      expect(updated).toEqual(textPart('prt_1', 'msg_1', 'hello world'));
      expect(await store.getPart('prt_1')).toEqual(updated);
    });

    it('refuses to update an unknown part with a NotFoundError naming it', async () => {
      const store = await openStore();
      const update = store.updatePart('prt_nope', (part) => part);
      await expect(update).rejects.toBeInstanceOf(NotFoundError);
      await expect(update).rejects.toThrow('Unknown part "prt_nope"');
    });

    it("deletes a message's parts and only that message's", async () => {
      const store = await openStore();
      await store.savePart(textPart('prt_1a', 'msg_1', 'a'));
      await store.savePart(textPart('prt_1b', 'msg_1', 'b'));
      await store.savePart(textPart('prt_2a', 'msg_2', 'c'));
      await store.deleteParts('msg_1');
      expect(await store.parts('msg_1')).toEqual([]);
      expect(textsOf(await store.parts('msg_2'))).toEqual(['c']);
    });
  });

  describe(`${name} changes`, () => {
    it('returns only the messages and parts written after the cursor, and a new cursor', async () => {
      const store = await openStore();
      await store.saveMessage(userMessage('msg_1'));
      await store.savePart(textPart('prt_1', 'msg_1', 'one'));
      const first = await store.changes('ses_a', 0);
      expect(first.messages.map((m) => m.id)).toEqual(['msg_1']);
      expect(textsOf(first.parts)).toEqual(['one']);

      await store.savePart(textPart('prt_2', 'msg_1', 'two'));
      await store.savePart(textPart('prt_1', 'msg_1', 'one, edited'));
      await store.savePart(textPart('prt_other', 'msg_other', 'elsewhere', 'ses_b'));
      const second = await store.changes('ses_a', first.cursor);
      expect(second.cursor).toBeGreaterThan(first.cursor);
      expect(second.messages).toEqual([]);
      expect(textsOf(second.parts)).toEqual(['one, edited', 'two']);

      const third = await store.changes('ses_a', second.cursor);
      expect(third).toEqual({ cursor: second.cursor, messages: [], parts: [], removedParts: [], removedMessages: [] });
    });

    it('reports updatePart changes', async () => {
      const store = await openStore();
      await store.savePart(textPart('prt_1', 'msg_1', 'a'));
      const { cursor } = await store.changes('ses_a', 0);
      await store.updatePart('prt_1', (part) => ({ ...part, text: 'b' }) as TextPart);
      expect(textsOf((await store.changes('ses_a', cursor)).parts)).toEqual(['b']);
    });

    it('names the parts deleted after the cursor, and returns one written again after its deletion', async () => {
      const store = await openStore();
      await store.saveMessage(userMessage('msg_1'));
      await store.savePart(textPart('prt_1', 'msg_1', 'first try'));
      await store.savePart(textPart('prt_2', 'msg_1', 'more'));
      await store.savePart(textPart('prt_other', 'msg_other', 'elsewhere', 'ses_b'));
      const { cursor } = await store.changes('ses_a', 0);
      await store.deleteParts('msg_1');
      await store.deleteParts('msg_other');
      await store.savePart(textPart('prt_1', 'msg_1', 'second try'));
      const changes = await store.changes('ses_a', cursor);
      expect(changes.removedParts.sort()).toEqual(['prt_1', 'prt_2']);
      expect(textsOf(changes.parts)).toEqual(['second try']);
      expect((await store.changes('ses_a', changes.cursor)).removedParts).toEqual([]);
    });
  });

  describeRecordsContract(name, openStore);
  describeChangeFeedContract(name, openStore);
  describeFeedContract(name, openStore);
  describeRemovalContract(name, openStore);
  describeWorkspaceConfigContract(name, openStore);
  describeConfigTrustContract(name, openStore);
  describeBudgetContract(name, openStore);
  describeRateLimitContract(name, openStore);

  describe(`${name} shared by several processes`, () => {
    it("lets a second store on the same database (the CLI beside a worker) see the first one's writes", async () => {
      const worker = await openStore();
      const cli = await openStore();
      await worker.saveSession(session('ses_a', 1));
      await worker.saveMessage(userMessage('msg_1'));
      await worker.savePart(textPart('prt_1', 'msg_1', 'streaming'));
      expect(await cli.getSession('ses_a')).toEqual(session('ses_a', 1));
      const { cursor } = await cli.changes('ses_a', 0);

      await worker.updatePart('prt_1', (part) => ({ ...part, text: 'streaming, done' }) as TextPart);
      expect(textsOf((await cli.changes('ses_a', cursor)).parts)).toEqual(['streaming, done']);
    });

    it('keeps its data when reopened', async () => {
      const first = await openStore();
      await first.saveSession(session('ses_a', 1));
      await first.savePart(textPart('prt_1', 'msg_1', 'kept'));
      await first.close();

      const second = await openStore();
      expect(await second.getSession('ses_a')).toEqual(session('ses_a', 1));
      expect(textsOf(await second.parts('msg_1'))).toEqual(['kept']);
    });

    it('opens a new database from two stores at once, creating the schema once', async () => {
      const [a, b] = await Promise.all([openStore(), openStore()]);
      await a.saveSession(session('ses_a', 1));
      await b.saveSession(session('ses_b', 2));
      expect((await a.listSessions()).map((s) => s.id)).toEqual(['ses_b', 'ses_a']);
      expect((await b.listSessions()).map((s) => s.id)).toEqual(['ses_b', 'ses_a']);
    });

    it('gives parts written by two stores at once revisions a follower polling meanwhile never skips', async () => {
      const [a, b, follower] = await Promise.all([openStore(), openStore(), openStore()]);
      await a.saveMessage(userMessage('msg_1'));
      const written = (store: SessionStore, prefix: string) =>
        (async () => {
          for (let i = 0; i < 40; i++)
            await store.savePart(textPart(`prt_${prefix}${String(i).padStart(3, '0')}`, 'msg_1', `${prefix}${i}`));
        })();
      const seen = new Map<string, string>();
      let cursor = 0;
      let writing = true;
      const polling = (async () => {
        while (writing) {
          const changes = await follower.changes('ses_a', cursor);
          expect(changes.cursor).toBeGreaterThanOrEqual(cursor);
          for (const part of changes.parts) seen.set(part.id, (part as TextPart).text);
          cursor = changes.cursor;
        }
      })();
      await Promise.all([written(a, 'a'), written(b, 'b')]);
      writing = false;
      await polling;
      // The last poll, after every write ended, brings the rest; a revision the cursor skipped while
      // its writer was still open would never show up.
      const last = await follower.changes('ses_a', cursor);
      for (const part of last.parts) seen.set(part.id, (part as TextPart).text);
      expect(seen.size).toBe(80);
      expect((await follower.parts('msg_1')).length).toBe(80);
      expect(await follower.changes('ses_a', last.cursor)).toEqual({
        cursor: last.cursor,
        messages: [],
        parts: [],
        removedParts: [],
        removedMessages: [],
      });
    });

    it('updates a part as another store last wrote it, not as this one did', async () => {
      const [a, b] = await Promise.all([openStore(), openStore()]);
      const append = (store: SessionStore, text: string) =>
        store.updatePart('prt_1', (part) => ({ ...part, text: (part as TextPart).text + text }) as TextPart);
      await a.savePart(textPart('prt_1', 'msg_1', 'one'));
      await append(b, ', two');
      expect(textsOf([await append(a, ', three')])).toEqual(['one, two, three']);
      await b.deleteParts('msg_1');
      await expect(append(a, ', four')).rejects.toThrow('Unknown part "prt_1"');
    });

    it('loses no update when two stores update one part at the same time', async () => {
      const [a, b] = await Promise.all([openStore(), openStore()]);
      await a.savePart(textPart('prt_1', 'msg_1', ''));
      const appends = (store: SessionStore, letter: string) =>
        Promise.all(
          Array.from({ length: 20 }, () =>
            store.updatePart('prt_1', (part) => ({ ...part, text: (part as TextPart).text + letter }) as TextPart),
          ),
        );
      await Promise.all([appends(a, 'a'), appends(b, 'b')]);
      const text = ((await b.getPart('prt_1')) as TextPart).text;
      expect(text.length).toBe(40);
      expect(text.replace(/b/g, '')).toBe('a'.repeat(20));
    });
  });
}
