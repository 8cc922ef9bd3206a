import { describe, expect, it } from 'vitest';
import {
  batchTaskPromptId,
  derivedId,
  idSequence,
  idTime,
  isId,
  newId,
  nextId,
  partId,
  seededId,
} from '../../core/records/ids.js';

const T0 = Date.UTC(2025, 0, 2, 3, 4, 5, 678);

/** A seeded stand-in for Math.random, so a failing run can be reproduced. */
function seededRandom(seed = 1): () => number {
  let state = seed;
  return () => {
    state = (state * 16807) % 2147483647;
    return (state - 1) / 2147483646;
  };
}

const sorted = (ids: string[]) => [...ids].sort();

describe('newId', () => {
  it('is <prefix>_ followed by 16 hex digits and 10 base62 characters', () => {
    for (const prefix of ['ses', 'msg', 'prt'] as const) {
      const id = newId(prefix, T0, Math.random);
      expect(id).toMatch(new RegExp(`^${prefix}_[0-9a-f]{16}[0-9A-Za-z]{10}$`));
      expect(isId(prefix, id)).toBe(true);
    }
  });

  it('sorts in creation order when many are created in the same millisecond', () => {
    const random = seededRandom();
    const ids = Array.from({ length: 5_000 }, () => newId('msg', T0 + 1, random));
    expect(new Set(ids).size).toBe(ids.length);
    expect(sorted(ids)).toEqual(ids);
  });

  it('sorts in creation order across milliseconds, whatever the random part', () => {
    // The random part of the earlier id is as large as it gets and the later one's as small.
    const earlier = newId('msg', T0 + 10, () => 0.999999);
    const later = newId('msg', T0 + 11, () => 0);
    const muchLater = newId('msg', T0 + 86_400_000, () => 0);
    expect(sorted([muchLater, later, earlier])).toEqual([earlier, later, muchLater]);
  });

  it('sorts in creation order when bursts in one millisecond are followed by the next', () => {
    const random = seededRandom(7);
    const ids: string[] = [];
    for (let ms = 0; ms < 20; ms++) {
      for (let i = 0; i < 50; i++) ids.push(newId('ses', T0 + 1_000 + ms, random));
    }
    expect(sorted(ids)).toEqual(ids);
  });
});

describe('idTime', () => {
  it('returns the creation time encoded in an id', () => {
    expect(idTime(newId('msg', T0, Math.random))).toBe(T0);
    expect(idTime(newId('ses', 0, Math.random))).toBe(0);
  });

  it('returns the message time for a part id', () => {
    const messageId = newId('msg', T0 + 2_000, Math.random);
    expect(idTime(partId(messageId, 3))).toBe(T0 + 2_000);
  });
});

describe('partId', () => {
  const messageId = newId('msg', T0 + 5_000, seededRandom(3));

  it('is a prt id and the same every time for the same message and index', () => {
    const id = partId(messageId, 0);
    expect(isId('prt', id)).toBe(true);
    expect(partId(messageId, 0)).toBe(id);
    expect(partId(messageId, 1)).not.toBe(id);
  });

  it('sorts by index within a message, also past single hex digits', () => {
    const ids = [0, 1, 2, 9, 10, 15, 16, 255, 256, 4096].map((i) => partId(messageId, i));
    expect(sorted(ids)).toEqual(ids);
  });

  it("sorts by message first: every part of an earlier message before a later message's parts", () => {
    const later = newId('msg', T0 + 5_001, seededRandom(4));
    const ids = [partId(messageId, 0), partId(messageId, 500), partId(later, 0), partId(later, 1)];
    expect(sorted(ids)).toEqual(ids);
  });

  it('refuses an id that is not a message id', () => {
    const sessionId = newId('ses', T0, Math.random);
    expect(() => partId(sessionId, 0)).toThrow(`Not a msg id: "${sessionId}"`);
    expect(() => partId('msg_short', 0)).toThrow('Not a msg id');
    expect(() => partId(partId(messageId, 0), 0)).toThrow('Not a msg id');
  });
});

describe('isId', () => {
  const id = newId('ses', T0, Math.random);

  it('accepts an id with the given prefix only', () => {
    expect(isId('ses', id)).toBe(true);
    expect(isId('msg', id)).toBe(false);
  });

  it('rejects strings of the wrong shape', () => {
    expect(isId('ses', `${id}x`)).toBe(false);
    expect(isId('ses', id.slice(0, -1))).toBe(false);
    expect(isId('ses', id.toUpperCase().replace('SES_', 'ses_'))).toBe(false); // hex part must be lowercase
    expect(isId('ses', `${id.slice(0, -1)}-`)).toBe(false);
    expect(isId('ses', '')).toBe(false);
  });
});

describe('id sequences of a workflow run', () => {
  it('draw the same ids again from the same start and randomness (a task tried again)', () => {
    const draw = () => {
      const sequence = idSequence(T0);
      const random = seededRandom(7);
      return Array.from({ length: 5 }, () => nextId('msg', sequence, random));
    };
    expect(draw()).toEqual(draw());
    expect(draw().every((id) => isId('msg', id) && idTime(id) === T0)).toBe(true);
  });

  it('sort in the order drawn, past 65,536 ids in one millisecond', () => {
    const sequence = idSequence(T0);
    const random = seededRandom();
    const ids = Array.from({ length: 70_000 }, () => nextId('msg', sequence, random));
    expect(sorted(ids)).toEqual(ids);
    expect(idTime(ids.at(-1)!)).toBe(T0 + 1);
  });
});

describe('ids derived from other ids', () => {
  it('are decided by their source alone', () => {
    const message = newId('msg', T0, Math.random);
    expect(derivedId('prm', message)).toBe(derivedId('prm', message));
    expect(derivedId('prm', message, 1)).not.toBe(derivedId('prm', message));
    expect(seededId('ses', T0, 'bat_x:3:2')).toBe(seededId('ses', T0, 'bat_x:3:2'));
    expect(seededId('ses', T0, 'bat_x:3:2')).not.toBe(seededId('ses', T0, 'bat_x:3:1'));
    expect(isId('ses', seededId('ses', T0, 'seed'))).toBe(true);
    const batch = newId('bat', T0, Math.random);
    expect(batchTaskPromptId(batch, 12)).not.toBe(batchTaskPromptId(batch, 1));
  });
});
