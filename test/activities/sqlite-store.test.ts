import Database from 'better-sqlite3';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrations } from '../../activities/store/sqlite/migrations.js';
import { SqliteSessionStore } from '../../activities/store/sqlite/store.js';
import { describeStoreContract } from '../../testkit/store/store-contract.js';
import { session, textPart, textsOf } from '../../testkit/store/store-records.js';

let dir: string;
let file: string;
const opened: SqliteSessionStore[] = [];

function openStore(path = file): SqliteSessionStore {
  const store = new SqliteSessionStore(path);
  opened.push(store);
  return store;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loom-store-'));
  file = join(dir, 'data', 'loom.db');
});

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describeStoreContract('SqliteSessionStore', async () => new SqliteSessionStore(file));

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

  it('creates the folder of the file, and runs the migrations once', async () => {
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
      {
        eval: true,
        workerData: {
          file,
          migration: migrations[0],
          sqlite: createRequire(import.meta.url).resolve('better-sqlite3'),
        },
      },
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
