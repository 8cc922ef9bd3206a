// The transcript a model call is shown, kept between steps: after every kind of change a session
// goes through, it must equal a fresh read of the store from the last compaction on.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TranscriptCache } from '../../activities/model/transcript-cache.js';
import { SqliteSessionStore } from '../../activities/store/sqlite/store.js';
import { zeroTokens, type AssistantMessage, type UserMessage } from '../../core/records/message.js';
import type { Part } from '../../core/records/part.js';

const SESSION = 'ses_cache';
let dir: string;
let store: SqliteSessionStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loom-transcript-cache-'));
  store = new SqliteSessionStore(join(dir, 'loom.db'));
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const user = (id: string): UserMessage => ({
  id,
  sessionID: SESSION,
  role: 'user',
  agent: 'build',
  model: 'scripted/m',
  time: { created: 1 },
});
const assistant = (id: string, extra: Partial<AssistantMessage> = {}): AssistantMessage => ({
  id,
  sessionID: SESSION,
  role: 'assistant',
  agent: 'build',
  model: 'scripted/m',
  parentID: 'msg_01',
  step: 1,
  time: { created: 2 },
  tokens: zeroTokens(),
  cost: 0,
  ...extra,
});
const text = (id: string, messageID: string, value: string): Part => ({
  id,
  sessionID: SESSION,
  messageID,
  type: 'text',
  text: value,
});
const output = (id: string, messageID: string, value: string, compacted?: number): Part => ({
  id,
  sessionID: SESSION,
  messageID,
  type: 'tool',
  callID: `call_${id}`,
  tool: 'read',
  state: {
    status: 'completed',
    input: { filePath: 'a' },
    output: value,
    title: 'a',
    metadata: {},
    time: { start: 1, end: 2, ...(compacted ? { compacted } : {}) },
  },
});

/** What the model activity read before the cache: the store, from the last compaction on. */
async function fresh() {
  return store.messages(SESSION, await store.compactionStart(SESSION));
}

describe('the transcript kept between model calls', () => {
  it('follows new steps, edited parts, a retried answer and a compaction, as a fresh read sees them', async () => {
    const cache = new TranscriptCache(store);
    await store.saveMessage(user('msg_01'));
    await store.savePart(text('prt_01a', 'msg_01', 'Read a.'));
    expect(await cache.history(SESSION)).toEqual(await fresh());

    // A step: the answer, its tool call's output.
    await store.saveMessage(assistant('msg_02'));
    await store.savePart(output('prt_02a', 'msg_02', 'contents of a'));
    expect(await cache.history(SESSION)).toEqual(await fresh());

    // Pruning clears an old output in place.
    await store.updatePart('prt_02a', (part) => output(part.id, part.messageID, '', 3));
    // An answer that broke off and was asked for again: its parts deleted and written anew, one fewer.
    await store.saveMessage(assistant('msg_03'));
    await store.savePart(text('prt_03a', 'msg_03', 'half an ans'));
    await store.savePart(text('prt_03b', 'msg_03', 'and more'));
    expect(await cache.history(SESSION)).toEqual(await fresh());
    await store.deleteParts('msg_03');
    await store.savePart(text('prt_03a', 'msg_03', 'the whole answer'));
    expect(await cache.history(SESSION)).toEqual(await fresh());
    expect((await cache.history(SESSION)).at(-1)!.parts).toHaveLength(1);

    // A compaction: the model is shown the summary on, not what came before.
    await store.saveMessage(user('msg_04'));
    await store.savePart({ id: 'prt_04a', sessionID: SESSION, messageID: 'msg_04', type: 'compaction', auto: true });
    await store.saveMessage(assistant('msg_05', { summary: true, finish: 'stop' }));
    await store.savePart(text('prt_05a', 'msg_05', 'Summary: read a.'));
    await store.saveMessage(user('msg_06'));
    const after = await cache.history(SESSION);
    expect(after).toEqual(await fresh());
    expect(after.map((m) => m.info.id)).toEqual(['msg_04', 'msg_05', 'msg_06']);
  });

  it('catches up from wherever it stopped, as a second worker taking every other step does', async () => {
    const [even, odd] = [new TranscriptCache(store), new TranscriptCache(store)];
    await store.saveMessage(user('msg_00'));
    for (let step = 1; step <= 6; step++) {
      const id = `msg_${String(step).padStart(2, '0')}`;
      await store.saveMessage(assistant(id));
      await store.savePart(text(`prt_${step}a`, id, `step ${step}`));
      // A part of an earlier message changes while the other worker is not looking.
      await store.updatePart('prt_1a', (part) => text(part.id, part.messageID, `step 1, seen at step ${step}`));
      expect(await (step % 2 ? odd : even).history(SESSION)).toEqual(await fresh());
    }
  });

  it('orders messages and parts as the store does, whatever order they were written in', async () => {
    const cache = new TranscriptCache(store);
    await store.saveMessage(user('msg_01'));
    expect(await cache.history(SESSION)).toEqual(await fresh());
    await store.savePart(text('prt_b', 'msg_03', 'part before its message'));
    await store.saveMessage(assistant('msg_03'));
    await store.saveMessage(assistant('msg_02'));
    await store.savePart(text('prt_c', 'msg_02', 'second'));
    await store.savePart(text('prt_a', 'msg_02', 'first'));
    const history = await cache.history(SESSION);
    expect(history).toEqual(await fresh());
    expect(history.map((m) => m.parts.map((p) => p.id))).toEqual([[], ['prt_a', 'prt_c'], ['prt_b']]);
  });

  it('drops removed messages with their parts, and takes back one written again', async () => {
    const cache = new TranscriptCache(store);
    for (const id of ['msg_01', 'msg_02', 'msg_03']) {
      await store.saveMessage(id === 'msg_01' ? user(id) : assistant(id));
      await store.savePart(text(`prt_${id}`, id, `text of ${id}`));
    }
    expect(await cache.history(SESSION)).toEqual(await fresh());
    // What a revert leaves for good at the next prompt.
    await store.removeMessages(SESSION, ['msg_02', 'msg_03']);
    const after = await cache.history(SESSION);
    expect(after).toEqual(await fresh());
    expect(after.map((m) => m.info.id)).toEqual(['msg_01']);
    await store.saveMessage(assistant('msg_03'));
    expect(await cache.history(SESSION)).toEqual(await fresh());
    expect((await cache.history(SESSION)).map((m) => [m.info.id, m.parts.length])).toEqual([
      ['msg_01', 1],
      ['msg_03', 0],
    ]);
  });
});

describe('what the transcript cache holds', () => {
  const other = 'ses_other';
  async function session(id: string, words: number) {
    await store.saveMessage({ ...user(`msg_${id}`), sessionID: id });
    await store.savePart({ ...text(`prt_${id}`, `msg_${id}`, 'word '.repeat(words)), sessionID: id });
  }

  it('stays under its byte budget, dropping the session asked for longest ago, which reads afresh when asked again', async () => {
    await session(SESSION, 2_000);
    await session(other, 2_000);
    const cache = new TranscriptCache(store, { sessions: 10, bytes: 15_000 });
    await cache.history(SESSION);
    expect(cache.held().sessions).toBe(1);
    const kept = await cache.history(other);
    // Both would take some 20 KB: the first asked for is dropped, the one just read kept.
    expect(cache.held()).toEqual({ sessions: 1, bytes: expect.any(Number) });
    expect(cache.held().bytes).toBeLessThanOrEqual(15_000);
    expect(kept).toEqual(await store.messages(other));
    expect(await cache.history(SESSION)).toEqual(await store.messages(SESSION));
  });

  it('keeps as many sessions as it is allowed, however small', async () => {
    await session(SESSION, 1);
    await session(other, 1);
    const cache = new TranscriptCache(store, { sessions: 1, bytes: 1_000_000 });
    await cache.history(SESSION);
    await cache.history(other);
    expect(cache.held().sessions).toBe(1);
    expect(await cache.history(SESSION)).toEqual(await store.messages(SESSION));
  });
});
