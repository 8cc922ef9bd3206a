import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { SqliteSessionStore } from '../../activities/store/sqlite/store.js';
import type { SessionStore } from '../../activities/store/store.js';
import { followSession } from '../../client/follow/session-changes.js';
import { RunPrinter } from '../../client/render/run-printer.js';
import { textPart } from '../../testkit/store/store-records.js';

let dir: string;
const opened: SessionStore[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loom-follow-'));
});

afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

function open(): SqliteSessionStore {
  const store = new SqliteSessionStore(join(dir, 'loom.db'));
  opened.push(store);
  return store;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('prints what another process writes as it comes, waits without polling, and prints the rest once done settles', async () => {
  const worker = open();
  const cli = open();
  let looks = 0;
  const counted = Object.assign(Object.create(cli) as SessionStore, {
    changes: (sessionID: string, since: number) => {
      looks++;
      return cli.changes(sessionID, since);
    },
  });
  let answer = '';
  const printer = new RunPrinter({ write: (text: string) => (answer += text) }, { write: () => undefined });
  let finish: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const following = followSession(counted, 'ses_a', 0, printer, done);

  await worker.savePart(textPart('prt_1', 'msg_1', 'Hello'));
  await expect.poll(() => answer, { timeout: 5_000 }).toBe('Hello');

  // Nothing happens for a second: a follower that polled every 100 ms would look ten times.
  const before = looks;
  await delay(1_000);
  expect(looks - before).toBeLessThanOrEqual(2);

  await worker.updatePart('prt_1', (part) => ({ ...part, text: 'Hello, world' }));
  await expect.poll(() => answer, { timeout: 5_000 }).toBe('Hello, world');

  await worker.savePart(textPart('prt_2', 'msg_1', 'Bye.'));
  finish();
  await following;
  expect(answer).toBe('Hello, world\n\nBye.\n');
});
