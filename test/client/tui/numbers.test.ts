import { describe, expect, it } from 'vitest';
import { formatTokens } from '../../../client/tui/transcript/numbers.js';

describe('formatTokens', () => {
  it('groups thousands with commas, as en-US does, and shortens millions', () => {
    expect(formatTokens(0)).toBe('0');
    expect(formatTokens(999)).toBe('999');
    expect(formatTokens(1_000)).toBe('1,000');
    expect(formatTokens(12_345)).toBe('12,345');
    expect(formatTokens(999_999)).toBe('999,999');
    expect(formatTokens(1_234_567)).toBe('1.2M');
  });
});
