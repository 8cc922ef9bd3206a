import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from '../../core/text/duration.js';

describe('durations', () => {
  it.each([
    ['5', 5000],
    ['90', 90_000],
    ['90s', 90_000],
    ['30m', 1_800_000],
    ['2h', 7_200_000],
    ['1h30m', 5_400_000],
    ['1m30s', 90_000],
    ['1500ms', 1500],
    [' 2s ', 2000],
  ])('reads %j as %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'abc', '5x', '0', '0s', '-5', '-5s', '1.5h', 's', '30m2h', '99999999999999999999'])(
    'refuses %j',
    (text) => {
      expect(parseDuration(text)).toBeUndefined();
    },
  );

  it.each([
    [800, '800 ms'],
    [2000, '2 s'],
    [2500, '2.5 s'],
    [90_000, '1 min 30 s'],
    [1_800_000, '30 min'],
    [5_400_000, '1 h 30 min'],
    [7_200_000, '2 h'],
  ])('writes %d ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
