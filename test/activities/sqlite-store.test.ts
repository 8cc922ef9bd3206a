import Database from 'better-sqlite3';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '../../core/message.js';
import type { Part, TextPart } from '../../core/part.js';
import type { Session } from '../../core/session.js';
import { migrations } from '../../activities/store/migrations.js';
import { SqliteSessionStore } from '../../activities/store/sqlite.js';
import { NotFoundError } from '../../activities/store/store.js';

let dir: string;
let file: string;
const opened: SqliteSessionStore[] = [];

function openStore(path = file): SqliteSessionStore {
  const store = new SqliteSessionStore(path);
  opened.push(store);
  return store;
}

function session(id: string, updated: number, parentID?: string): Session {
  return {
    id,
    parentID,
    title: `Session ${id}`,
    agent: 'build',
    model: 'openai/gpt-4o',
    directory: '/project',
    status: 'idle',
    time: { created: updated, updated },
  };
}

function userMessage(id: string, sessionID = 'ses_a'): Message {
  return { id, sessionID, role: 'user', agent: 'build', model: 'openai/gpt-4o', time: { created: 1 } };
}

function textPart(id: string, messageID: string, text: string, sessionID = 'ses_a'): TextPart {
  return { id, sessionID, messageID, type: 'text', text };
}

const textsOf = (parts: Part[]) => parts.map((part) => (part.type === 'text' ? part.text : part.type));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loom-store-'));
  file = join(dir, 'data', 'loom.db');
});

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('SqliteSessionStore sessions', () => {
  it('saves and reads a session, creating the folder of the file', async () => {
    const store = openStore();
    await store.saveSession(session('ses_a', 1));
    expect(await store.getSession('ses_a')).toEqual(session('ses_a', 1));
    expect(await store.getSession('ses_missing')).toBeUndefined();
  });

  it('lists sessions most recently updated first, and leaves out children with roots', async () => {
    const store = openStore();
    await store.saveSession(session('ses_old', 1));
    await store.saveSession(session('ses_new', 3));
    await store.saveSession(session('ses_child', 2, 'ses_old'));
    expect((await store.listSessions()).map((s) => s.id)).toEqual(['ses_new', 'ses_child', 'ses_old']);
    expect((await store.listSessions({ roots: true })).map((s) => s.id)).toEqual(['ses_new', 'ses_old']);
    expect((await store.listSessions({ limit: 1 })).map((s) => s.id)).toEqual(['ses_new']);
  });

  it("lists a session's children", async () => {
    const store = openStore();
    await store.saveSession(session('ses_parent', 1));
    await store.saveSession(session('ses_c1', 2, 'ses_parent'));
    await store.saveSession(session('ses_c2', 3, 'ses_parent'));
    await store.saveSession(session('ses_other', 4, 'ses_elsewhere'));
    expect((await store.children('ses_parent')).map((s) => s.id)).toEqual(['ses_c1', 'ses_c2']);
    expect(await store.children('ses_c1')).toEqual([]);
  });

  it('sets the status and the updated time, which moves the session to the top of the list', async () => {
    const store = openStore();
    await store.saveSession(session('ses_a', 1));
    await store.saveSession(session('ses_b', 2));
    await store.setSessionStatus('ses_a', 'busy', 10);
    expect(await store.getSession('ses_a')).toMatchObject({ status: 'busy', time: { created: 1, updated: 10 } });
    expect((await store.listSessions()).map((s) => s.id)).toEqual(['ses_a', 'ses_b']);
  });

  it('refuses to set the status of an unknown session, naming it', async () => {
    const store = openStore();
    await expect(store.setSessionStatus('ses_nope', 'idle', 1)).rejects.toThrow(NotFoundError);
    await expect(store.setSessionStatus('ses_nope', 'idle', 1)).rejects.toThrow('Unknown session "ses_nope"');
  });

  it('refuses an invalid session instead of storing it', async () => {
    const store = openStore();
    await expect(store.saveSession({ ...session('ses_a', 1), status: 'done' as never })).rejects.toThrow();
    expect(await store.getSession('ses_a')).toBeUndefined();
  });
});

describe('SqliteSessionStore messages and parts', () => {
  it('returns messages with their parts in id order, whatever the order they were saved in', async () => {
    const store = openStore();
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
    const store = openStore();
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
    const store = openStore();
    await store.savePart(textPart('prt_1', 'msg_1', 'hello'));
    const updated = await store.updatePart('prt_1', (part) => ({ ...part, text: `${(part as TextPart).text} world` }));
    expect(updated).toEqual(textPart('prt_1', 'msg_1', 'hello world'));
    expect(await store.getPart('prt_1')).toEqual(updated);
  });

  it('refuses to update an unknown part with a NotFoundError naming it', async () => {
    const store = openStore();
    const update = store.updatePart('prt_nope', (part) => part);
    await expect(update).rejects.toBeInstanceOf(NotFoundError);
    await expect(update).rejects.toThrow('Unknown part "prt_nope"');
  });

  it("deletes a message's parts and only that message's", async () => {
    const store = openStore();
    await store.savePart(textPart('prt_1a', 'msg_1', 'a'));
    await store.savePart(textPart('prt_1b', 'msg_1', 'b'));
    await store.savePart(textPart('prt_2a', 'msg_2', 'c'));
    await store.deleteParts('msg_1');
    expect(await store.parts('msg_1')).toEqual([]);
    expect(textsOf(await store.parts('msg_2'))).toEqual(['c']);
  });
});

describe('SqliteSessionStore changes', () => {
  it('returns only the messages and parts written after the cursor, and a new cursor', async () => {
    const store = openStore();
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
    expect(third).toEqual({ cursor: second.cursor, messages: [], parts: [] });
  });

  it('reports updatePart changes', async () => {
    const store = openStore();
    await store.savePart(textPart('prt_1', 'msg_1', 'a'));
    const { cursor } = await store.changes('ses_a', 0);
    await store.updatePart('prt_1', (part) => ({ ...part, text: 'b' }) as TextPart);
    expect(textsOf((await store.changes('ses_a', cursor)).parts)).toEqual(['b']);
  });
});

describe('SqliteSessionStore file', () => {
  it('uses WAL mode', async () => {
    openStore();
    const db = new Database(file, { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
    }
  });

  it('keeps its data when reopened, without running the migrations again', async () => {
    const first = openStore();
    await first.saveSession(session('ses_a', 1));
    await first.savePart(textPart('prt_1', 'msg_1', 'kept'));
    await first.close();

    const second = openStore();
    expect(await second.getSession('ses_a')).toEqual(session('ses_a', 1));
    expect(textsOf(await second.parts('msg_1'))).toEqual(['kept']);
    const db = new Database(file, { readonly: true });
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    } finally {
      db.close();
    }
  });

  it("lets a second store on the same file (the CLI beside a worker) see the first one's writes", async () => {
    const worker = openStore();
    const cli = openStore();
    await worker.saveSession(session('ses_a', 1));
    await worker.saveMessage(userMessage('msg_1'));
    await worker.savePart(textPart('prt_1', 'msg_1', 'streaming'));
    expect(await cli.getSession('ses_a')).toEqual(session('ses_a', 1));
    const { cursor } = await cli.changes('ses_a', 0);

    await worker.updatePart('prt_1', (part) => ({ ...part, text: 'streaming, done' }) as TextPart);
    expect(textsOf((await cli.changes('ses_a', cursor)).parts)).toEqual(['streaming, done']);
  });

  it('refuses a database from a newer Loom, naming the file', () => {
    const db = new Database(join(dir, 'newer.db'));
    db.pragma(`user_version = ${migrations.length + 1}`);
    db.close();
    expect(() => openStore(join(dir, 'newer.db'))).toThrow(
      `Session store ${join(dir, 'newer.db')} has schema version ${migrations.length + 1}, newer than this Loom (${migrations.length}). Upgrade Loom.`,
    );
  });

  it('opens a new file that another process is creating at the same moment', async () => {
    // Another process (a worker started beside the CLI) holds the write lock while it creates
    // the schema; this store must wait for it instead of creating the tables a second time.
    mkdirSync(dirname(file), { recursive: true });
    const other = new Worker(
      `
      const { parentPort, workerData } = require('node:worker_threads');
      const Database = require(workerData.sqlite);
      const db = new Database(workerData.file);
      db.pragma('journal_mode = WAL');
      db.exec('BEGIN IMMEDIATE');
      parentPort.postMessage('locked');
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
      db.exec(workerData.migration);
      db.pragma('user_version = 1');
      db.exec('COMMIT');
      db.close();
      `,
      { eval: true, workerData: { file, migration: migrations[0], sqlite: createRequire(import.meta.url).resolve('better-sqlite3') } },
    );
    const exited = new Promise((resolve) => other.once('exit', resolve));
    await new Promise((resolve, reject) => {
      other.once('message', resolve);
      other.once('error', reject);
    });
    const store = openStore();
    await store.saveSession(session('ses_a', 1));
    expect(await store.getSession('ses_a')).toEqual(session('ses_a', 1));
    await exited;
  });
});
