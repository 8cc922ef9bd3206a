import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { newId, partId } from '../../core/records/ids.js';
import type { Part } from '../../core/records/part.js';
import { AnswerWriter } from '../../activities/model/answer-writer.js';
import { SqliteSessionStore } from '../../activities/store/sqlite/store.js';
import type { SessionStore } from '../../activities/store/store.js';

const sessionID = 'ses_writer';
let dir: string;
let store: SqliteSessionStore;
let messageID: string;

/** A writer that only writes when told to (or when a block or call completes). */
function writerFor(target: SessionStore = store, throttleMs = 60_000): AnswerWriter {
  return new AnswerWriter(target, { sessionID, messageID }, throttleMs);
}

/** The store, except that its next `savePart` fails. */
function failingOnce(error: Error): SessionStore {
  let failed = false;
  return Object.assign(Object.create(store) as SessionStore, {
    savePart: async (part: Part) => {
      if (!failed) {
        failed = true;
        throw error;
      }
      return store.savePart(part);
    },
  });
}

const summary = (parts: Part[]) =>
  parts.map((part) => [
    part.id,
    part.type,
    part.type === 'text' || part.type === 'reasoning' ? part.text : part.type === 'tool' ? part.tool : '',
  ]);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loom-writer-'));
  store = new SqliteSessionStore(join(dir, 'loom.db'));
  messageID = newId('msg', Date.now(), Math.random);
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('AnswerWriter', () => {
  it('joins streamed text deltas into one text part', async () => {
    const writer = writerFor();
    for (const delta of ['Hel', 'lo, ', 'world', '!']) writer.text('t1', delta);
    writer.end('text', 't1');
    await writer.flush();
    const parts = await store.parts(messageID);
    expect(parts).toHaveLength(1);
    expect(parts[0]).toMatchObject({
      id: partId(messageID, 0),
      sessionID,
      messageID,
      type: 'text',
      text: 'Hello, world!',
    });
    expect(writer.textOf()).toBe('Hello, world!');
  });

  it('writes nothing it was not told to before the throttle, and everything on flush', async () => {
    const writer = writerFor();
    writer.text('t1', 'partial');
    expect(await store.parts(messageID)).toEqual([]);
    await writer.flush();
    expect(summary(await store.parts(messageID))).toEqual([[partId(messageID, 0), 'text', 'partial']]);
  });

  it('writes deltas in the background after the throttle interval, so a follower sees the answer grow', async () => {
    const writer = writerFor(store, 10);
    writer.text('t1', 'first words');
    await vi.waitFor(async () =>
      expect(summary(await store.parts(messageID))).toEqual([[partId(messageID, 0), 'text', 'first words']]),
    );
    writer.text('t1', ', more');
    await vi.waitFor(async () =>
      expect((await store.getPart(partId(messageID, 0))) as Part).toMatchObject({ text: 'first words, more' }),
    );
    await writer.flush();
  });

  it('orders parts by first appearance, with ids partId(messageId, i)', async () => {
    const writer = writerFor();
    writer.reasoning('r1', 'Think.');
    writer.text('t1', 'Let me ');
    writer.reasoning('r1', ' Harder.');
    writer.toolInput('call_1', 'read', '');
    writer.text('t1', 'look.');
    writer.end('text', 't1');
    writer.text('t2', 'Done.');
    await writer.flush();
    expect(summary(await store.parts(messageID))).toEqual([
      [partId(messageID, 0), 'reasoning', 'Think. Harder.'],
      [partId(messageID, 1), 'text', 'Let me look.'],
      [partId(messageID, 2), 'tool', 'read'],
      [partId(messageID, 3), 'text', 'Done.'],
    ]);
    expect(writer.textOf()).toBe('Let me look.Done.');
  });

  it('records a finished block with its end time', async () => {
    const writer = writerFor();
    writer.reasoning('r1', 'Think.');
    writer.end('reasoning', 'r1');
    await writer.flush();
    const [part] = await store.parts(messageID);
    expect(part).toMatchObject({ type: 'reasoning', time: { start: expect.any(Number), end: expect.any(Number) } });
  });

  it('turns tool input deltas and the complete call into a pending tool part with input and raw text', async () => {
    const writer = writerFor();
    writer.toolInput('call_1', 'read', '');
    writer.toolInput('call_1', '', '{"filePath":');
    writer.toolInput('call_1', '', '"README.md"}');
    const returned = writer.toolCall('call_1', 'read', { filePath: 'README.md' }, '{"filePath":"README.md"}');
    await writer.flush();
    const expected = {
      id: partId(messageID, 0),
      sessionID,
      messageID,
      type: 'tool',
      callID: 'call_1',
      tool: 'read',
      state: { status: 'pending', input: { filePath: 'README.md' }, raw: '{"filePath":"README.md"}' },
    };
    expect(returned).toEqual(expected);
    expect(await store.parts(messageID)).toEqual([expected]);
  });

  it('keeps the raw text of a call whose input is not an object, with empty input', async () => {
    const writer = writerFor();
    writer.toolCall('call_1', 'read', '{"filePath": "a', '{"filePath": "a');
    await writer.flush();
    expect((await store.parts(messageID))[0]).toMatchObject({
      state: { status: 'pending', input: {}, raw: '{"filePath": "a' },
    });
  });

  it('writes a complete tool call at once, without waiting for the throttle or a flush', async () => {
    const writer = writerFor();
    writer.toolCall('call_1', 'glob', { pattern: '**/*.md' }, '{"pattern":"**/*.md"}');
    await vi.waitFor(async () => expect(await store.parts(messageID)).toHaveLength(1));
    await writer.flush();
  });

  it('reports a store failure during a background write from the final flush', async () => {
    const failure = new Error('disk I/O error');
    const writer = writerFor(failingOnce(failure));
    writer.text('t1', 'Hello');
    writer.end('text', 't1'); // written in the background: this write fails
    writer.toolCall('call_1', 'read', { filePath: 'a' }, '{"filePath":"a"}');
    await expect(writer.flush()).rejects.toBe(failure);
  });

  it('reports a store failure from flush itself', async () => {
    const failure = new Error('database is locked');
    const writer = writerFor(failingOnce(failure));
    writer.text('t1', 'Hello');
    await expect(writer.flush()).rejects.toBe(failure);
  });
});
