// A session's whole life: `loom rm` and `DELETE /session/:id` delete it with its subtree (refusing
// a busy one), `loom export` and `loom import` carry it to a new session with the same transcript.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotRoot } from '../../activities/snapshot/project-root.js';
import { ShadowGit } from '../../activities/snapshot/shadow-git.js';
import { trackFiles } from '../../activities/snapshot/track.js';
import { newId } from '../../core/records/ids.js';
import type { Session } from '../../core/records/session.js';
import { createLoomTestEnv, SCRIPTED_MODEL, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { parseJson } from '../../testkit/loom/run-loom.js';
import { startTestServer, type TestServer } from '../../testkit/loom/serve-app.js';
import { connectEvents } from '../../testkit/network/sse-client.js';
import { session as sessionRecord, textPart, userMessage } from '../../testkit/store/store-records.js';

let env: LoomTestEnv;
let server: TestServer;

beforeAll(async () => {
  env = await createLoomTestEnv({ files: { 'README.md': '# Demo\nhello from the readme\n' } });
  await env.worker();
  server = await startTestServer(env);
});
afterAll(async () => {
  await server?.close();
  await env?.close();
});

/** A stored session tree: a root, two children and a grandchild under the first, each with a message. */
async function storedTree(): Promise<{ root: string; ids: string[] }> {
  const id = () => newId('ses', Date.now(), Math.random);
  const [root, childA, childB, grandchild] = [id(), id(), id(), id()];
  const at = (sessionId: string, parentID?: string): Session => ({
    ...sessionRecord(sessionId, Date.now(), parentID),
    directory: env.project,
  });
  for (const [sessionId, parent] of [
    [root, undefined],
    [childA, root],
    [childB, root],
    [grandchild, childA],
  ] as const) {
    await env.store.saveSession(at(sessionId, parent));
    const messageId = newId('msg', Date.now(), Math.random);
    await env.store.saveMessage(userMessage(messageId, sessionId));
    await env.store.savePart(textPart(`prt_${messageId.slice(4)}`, messageId, `hello ${sessionId}`, sessionId));
  }
  return { root, ids: [root, childA, childB, grandchild] };
}

/** A message or part without the ids an import replaces. */
function withoutIds(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value), (key, field) =>
    ['id', 'sessionID', 'messageID', 'parentID', 'promptID'].includes(key) ? undefined : field,
  );
}

describe('loom rm', () => {
  it('deletes a session with its whole subtree, and lets its snapshots go', async () => {
    const { root, ids } = await storedTree();
    const snapshots = ShadowGit.of(join(env.dataDir, 'snapshots'), snapshotRoot(env.project), root);
    await trackFiles(snapshots);
    expect(existsSync(snapshots.indexFile)).toBe(true);
    await snapshots.run(['rev-parse', '--verify', '--quiet', snapshots.ref]);

    const result = await env.loom(['rm', root, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const removed: string[] = parseJson(result).removed;
    expect([...removed].sort()).toEqual([...ids].sort());
    // Children before their parents.
    expect(removed.indexOf(ids[3])).toBeLessThan(removed.indexOf(ids[1]));
    expect(removed.at(-1)).toBe(root);
    for (const id of ids) {
      expect(await env.store.getSession(id)).toBeUndefined();
      expect(await env.store.messages(id)).toEqual([]);
    }
    expect(existsSync(snapshots.indexFile)).toBe(false);
    await expect(snapshots.run(['rev-parse', '--verify', '--quiet', snapshots.ref])).rejects.toThrow();

    const again = await env.loom(['rm', root]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain(`Unknown session "${root}"`);
  });

  it('refuses a tree with a busy session below it, naming it, and deletes nothing', async () => {
    const { root, ids } = await storedTree();
    await env.store.setSessionStatus(ids[3], 'busy', Date.now());
    const result = await env.loom(['rm', root]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`Session ${ids[3]}, below ${root}, is busy`);
    for (const id of ids) expect(await env.store.getSession(id)).toBeDefined();
  });

  it('refuses a session whose run is still open, and deletes it once the run ends', async () => {
    env.model.setScript([
      { name: 'slow', when: { lastUser: 'Take your time' }, reply: { text: 'Done.', delayMs: 6_000 } },
    ]);
    const { sessionId, result } = await env.start('Take your time', { model: SCRIPTED_MODEL });
    const refused = await env.loom(['rm', sessionId]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(`Session ${sessionId} is busy: cannot remove ${sessionId}`);
    expect(refused.stderr).toContain(`loom cancel ${sessionId}`);
    await result();
    const removed = await env.loom(['rm', sessionId]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toContain(`Removed ${sessionId}.`);
    expect(await env.store.getSession(sessionId)).toBeUndefined();
  });
});

describe('loom export and loom import', () => {
  it('brings a session back under a new id with the same transcript', async () => {
    env.model.setScript([
      {
        name: 'read',
        when: { lastUser: 'What does the readme say?', lastRole: 'user' },
        reply: { text: 'Let me read it.', toolCalls: [{ name: 'read', args: { filePath: 'README.md' } }] },
      },
      { name: 'answer', when: { lastRole: 'tool' }, reply: { text: 'It says hello.' } },
    ]);
    const run = await env.loom([
      'run',
      '--json',
      '--model',
      SCRIPTED_MODEL,
      '--title',
      'Readme',
      'What does the readme say?',
    ]);
    expect(run.code, run.stderr).toBe(0);
    const original: string = parseJson(run).sessionId;

    const file = join(env.project, 'exported.json');
    const exported = await env.loom(['export', original, '--output', file]);
    expect(exported.code, exported.stderr).toBe(0);
    const written = JSON.parse(readFileSync(file, 'utf8'));
    // OpenCode's three keys, todos too when the session has none.
    expect(Object.keys(written)).toEqual(['info', 'messages', 'todos']);
    expect(written.todos).toEqual([]);
    expect(written.info).toMatchObject({ id: original, title: 'Readme' });
    expect(written.messages[0]).toEqual({ info: expect.any(Object), parts: expect.any(Array) });
    // stdout by default, the same document.
    expect(JSON.parse((await env.loom(['export', original])).stdout)).toEqual(written);

    const imported = await env.loom(['import', file, '--json']);
    expect(imported.code, imported.stderr).toBe(0);
    const copy: string = parseJson(imported).sessionId;
    expect(copy).not.toBe(original);

    const [before, after] = await Promise.all(
      [original, copy].map(async (id) => parseJson(await env.loom(['show', id, '--json']))),
    );
    expect(after.session).toMatchObject({ id: copy, title: 'Readme', status: 'idle', directory: env.project });
    expect(after.session.parentID).toBeUndefined();
    expect(after.messages.length).toBe(before.messages.length);
    expect(withoutIds(after.messages)).toEqual(withoutIds(before.messages));
    for (const { info, parts } of after.messages) {
      expect(info.sessionID).toBe(copy);
      for (const part of parts) expect(part).toMatchObject({ sessionID: copy, messageID: info.id });
    }
    // Assistant messages answer the imported user message, not the original's.
    const ids = new Set(after.messages.map((m: { info: { id: string } }) => m.info.id));
    for (const { info } of after.messages) if (info.role === 'assistant') expect(ids.has(info.parentID)).toBe(true);
    // What a person reads is the same (but the copy was updated when it was imported).
    const shown = async (id: string) =>
      (await env.loom(['show', id])).stdout
        .replaceAll(id, '<id>')
        .replace(/ · updated [^\n]*/, '')
        .replaceAll(/msg_\w+/g, '<message>');
    expect(await shown(copy)).toEqual(await shown(original));
  });

  it('puts the import in another folder with --dir', async () => {
    const { root } = await storedTree();
    const file = join(env.project, 'tree.json');
    expect((await env.loom(['export', root, '-o', file])).code).toBe(0);
    const imported = await env.loom(['import', file, '--json', '--dir', env.dataDir]);
    expect(imported.code, imported.stderr).toBe(0);
    expect(await env.store.getSession(parseJson(imported).sessionId)).toMatchObject({ directory: env.dataDir });
  });

  it('refuses a file that is not an export, naming the file and the key at fault', async () => {
    const { root } = await storedTree();
    const file = join(env.project, 'broken.json');
    const document = JSON.parse((await env.loom(['export', root])).stdout);
    delete document.info.title;
    document.messages[0].parts[0].type = 'hologram';
    writeFileSync(file, JSON.stringify(document));
    const result = await env.loom(['import', file]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(file);
    expect(result.stderr).toContain('info.title');
    expect(result.stderr).toContain('messages.0.parts.0');

    writeFileSync(file, '{ not json');
    const notJson = await env.loom(['import', file]);
    expect(notJson.code).not.toBe(0);
    expect(notJson.stderr).toContain(`${file} is not JSON`);

    const missing = await env.loom(['export', 'ses_missing']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('Unknown session "ses_missing"');
  });
});

describe('DELETE /session/:id', () => {
  it('deletes a session tree, answers true, and streams session.deleted for each session', async () => {
    const events = await connectEvents(`${server.base}/event`);
    try {
      await events.next((event) => event.type === 'server.connected');
      const { root, ids } = await storedTree();
      const response = await fetch(`${server.base}/session/${root}`, { method: 'DELETE' });
      expect(response.status).toBe(200);
      expect(await response.json()).toBe(true);
      for (const id of ids) {
        const deleted = await events.next(
          (event) => event.type === 'session.deleted' && event.properties.sessionID === id,
        );
        expect(deleted.properties).toMatchObject({ sessionID: id, info: { id, directory: env.project } });
      }
      expect((await fetch(`${server.base}/session/${root}`)).status).toBe(404);

      const unknown = await fetch(`${server.base}/session/${root}`, { method: 'DELETE' });
      expect(unknown.status).toBe(404);
      expect(((await unknown.json()) as { error: string }).error).toContain(`Unknown session "${root}"`);
    } finally {
      events.close();
    }
  });

  it('answers 409 naming the busy session, and streams message.removed when messages are removed', async () => {
    const { root, ids } = await storedTree();
    await env.store.setSessionStatus(root, 'busy', Date.now());
    const refused = await fetch(`${server.base}/session/${root}`, { method: 'DELETE' });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: string }).error).toContain(`Session ${root} is busy`);
    expect(await env.store.getSession(ids[1])).toBeDefined();

    const events = await connectEvents(`${server.base}/event`);
    try {
      await events.next((event) => event.type === 'server.connected');
      const [message] = await env.store.messages(root);
      await env.store.removeMessages(root, [message.info.id]);
      const removed = await events.next((event) => event.type === 'message.removed');
      expect(removed.properties).toEqual({ sessionID: root, messageID: message.info.id });
    } finally {
      events.close();
    }
  });
});
