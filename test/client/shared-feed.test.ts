import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteSessionStore } from '../../activities/store/sqlite/store.js';
import { HostWatch } from '../../client/serve/events/host-watch.js';
import { SharedFeed } from '../../client/serve/events/shared-feed.js';
import { request, session } from '../../testkit/store/store-records.js';

let folder: string;
let store: SqliteSessionStore;

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'loom-feed-'));
  store = new SqliteSessionStore(join(folder, 'loom.db'));
});
afterEach(async () => {
  await store.close();
  rmSync(folder, { recursive: true, force: true });
});

function feedOf(sessionStore: SqliteSessionStore): SharedFeed {
  const hosts = new HostWatch(
    () => Promise.reject(new Error('no Temporal here')),
    'loom',
    async () => [],
  );
  return new SharedFeed(sessionStore, hosts);
}

function statuses(page: Awaited<ReturnType<SharedFeed['read']>>): string[] {
  return page.events.flatMap(({ event }) =>
    event.type === 'session.status' ? [`${event.properties.sessionID} ${event.properties.status.detail}`] : [],
  );
}

describe('the event feed of loom serve', () => {
  it('does not mark a session waiting for an approval asked after the page was read', async () => {
    const start = (await store.feed(0)).cursor;
    await store.saveSession({ ...session('ses_root', 1), status: 'busy' });
    // A subagent asks for an approval just after the server reads the page, before it works out statuses.
    const readFeed = store.feed.bind(store);
    store.feed = async (since, limit) => {
      const page = await readFeed(since, limit);
      await store.savePermissionRequest(request('per_late', 'pending', 'ses_root'));
      return page;
    };
    const page = await feedOf(store).read(start);
    expect(statuses(page)).toEqual(['ses_root busy']);
  });

  it('marks the root waiting once the page holds the request, and busy again once it is answered', async () => {
    const start = (await store.feed(0)).cursor;
    await store.saveSession({ ...session('ses_root', 1), status: 'busy' });
    await store.saveSession({ ...session('ses_a', 1, 'ses_root'), status: 'busy' });
    await store.savePermissionRequest(request('per_1', 'pending', 'ses_root'));
    const feed = feedOf(store);
    const asked = await feed.read(start);
    expect(statuses(asked)).toEqual([
      'ses_root busy',
      'ses_a busy',
      'ses_a waiting-approval',
      'ses_root waiting-approval',
    ]);

    await store.savePermissionRequest({
      ...request('per_1', 'approved', 'ses_root'),
      reply: { reply: 'once' },
      time: { created: 1, replied: 2 },
    });
    const answered = await feed.read(asked.cursor);
    expect(statuses(answered)).toEqual(['ses_a busy', 'ses_root busy']);
  });
});
