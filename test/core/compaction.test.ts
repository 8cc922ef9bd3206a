import { describe, expect, it } from 'vitest';
import { cleanTitle } from '../../activities/model/title-activities.js';
import { isOverflow, outputsToPrune, sinceLastCompaction } from '../../core/models/compaction.js';
import { zeroTokens, type MessageWithParts, type Tokens } from '../../core/records/message.js';
import type { Part, PartContent } from '../../core/records/part.js';

const settings = { auto: true, prune: true };
const tokens = (input: number, output = 0, cacheRead = 0): Tokens => ({
  ...zeroTokens(),
  input,
  output,
  cache: { read: cacheRead, write: 0 },
});

describe('isOverflow', () => {
  it('compares the step’s tokens with the context less the output reserve', () => {
    const limit = { context: 128_000, output: 16_384 };
    expect(isOverflow(tokens(100_000, 10_000), limit, settings)).toBe(false);
    expect(isOverflow(tokens(100_000, 11_616), limit, settings)).toBe(true);
    expect(isOverflow(tokens(60_000, 1_000, 50_616), limit, settings)).toBe(true);
  });

  it('uses the input limit less the reserve when the model has one', () => {
    const limit = { context: 400_000, input: 272_000, output: 128_000 };
    expect(isOverflow(tokens(251_999), limit, settings)).toBe(false);
    expect(isOverflow(tokens(252_000), limit, settings)).toBe(true);
    expect(isOverflow(tokens(265_000), limit, { ...settings, reserved: 5_000 })).toBe(false);
  });

  it('never overflows with compaction off or no known limit', () => {
    expect(isOverflow(tokens(1e9), { context: 1000, output: 100 }, { ...settings, auto: false })).toBe(false);
    expect(isOverflow(tokens(1e9), undefined, settings)).toBe(false);
  });
});

let next = 0;
function message(
  role: 'user' | 'assistant',
  parts: PartContent[],
  extra: Record<string, unknown> = {},
): MessageWithParts {
  const id = `msg_${String(next++).padStart(4, '0')}`;
  const info =
    role === 'user'
      ? { id, sessionID: 's', role, agent: 'build', model: 'm/x', time: { created: 0 } }
      : {
          id,
          sessionID: 's',
          role,
          agent: 'build',
          model: 'm/x',
          parentID: 'u',
          step: 1,
          time: { created: 0 },
          tokens: zeroTokens(),
          cost: 0,
          finish: 'stop',
          ...extra,
        };
  return {
    info: info as MessageWithParts['info'],
    parts: parts.map((part, i) => ({ ...part, id: `prt_${id}_${i}`, sessionID: 's', messageID: id }) as Part),
  };
}
const user = (text: string) => message('user', [{ type: 'text', text }]);
const toolOutput = (chars: number, compacted?: number) =>
  message('assistant', [
    {
      type: 'tool',
      callID: `c${next}`,
      tool: 'read',
      state: {
        status: 'completed',
        input: {},
        output: 'x'.repeat(chars),
        title: 't',
        metadata: {},
        time: { start: 0, end: 1, ...(compacted ? { compacted } : {}) },
      },
    },
  ]);

describe('outputsToPrune', () => {
  it('keeps the last two turns and the latest 40k tokens of output, and clears older ones past 20k', () => {
    const history = [
      user('one'),
      ...Array.from({ length: 12 }, () => toolOutput(40_000)),
      user('two'),
      toolOutput(4),
      user('three'),
      toolOutput(4),
    ];
    const pruned = outputsToPrune(history);
    // 12 outputs of 10k tokens: the newest four stay (40k), the older eight (80k) go.
    expect(pruned).toHaveLength(8);
    expect(pruned).toEqual(
      history
        .slice(1, 9)
        .map((m) => m.parts[0].id)
        .reverse(),
    );
  });

  it('clears nothing when less than 20k tokens would go', () => {
    const history = [user('one'), ...Array.from({ length: 5 }, () => toolOutput(40_000)), user('two'), user('three')];
    expect(outputsToPrune(history)).toEqual([]);
  });

  it('stops at an output already cleared and at a summary', () => {
    const cleared = [
      user('one'),
      toolOutput(400_000, 1),
      ...Array.from({ length: 8 }, () => toolOutput(40_000)),
      user('two'),
      user('three'),
    ];
    expect(outputsToPrune(cleared)).toHaveLength(4);
    const summarised = [
      user('one'),
      toolOutput(400_000),
      message('assistant', [{ type: 'text', text: 'summary' }], { summary: true }),
      user('two'),
      user('three'),
    ];
    expect(outputsToPrune(summarised)).toEqual([]);
  });
});

describe('sinceLastCompaction', () => {
  it('starts at the last compaction whose summary finished without error', () => {
    const request = message('user', [{ type: 'compaction', auto: true }]);
    const summary = message('assistant', [{ type: 'text', text: '## Goal' }], { summary: true });
    const history = [user('old'), request, summary, user('new')];
    expect(sinceLastCompaction(history).map((m) => m.info.id)).toEqual(
      [request, summary, history[3]].map((m) => m.info.id),
    );
    const failed = message('assistant', [], { summary: true, error: { name: 'ContextOverflow', message: 'x' } });
    expect(sinceLastCompaction([user('old'), request, failed])).toHaveLength(3);
  });
});

describe('cleanTitle', () => {
  it('keeps one line, drops thinking and quotes, and cuts at 100 characters', () => {
    expect(cleanTitle('<think>hmm</think>\n\n"Fix the login bug"\nextra')).toBe('Fix the login bug');
    expect(cleanTitle('x'.repeat(150))).toHaveLength(100);
    expect(cleanTitle('x'.repeat(150)).endsWith('...')).toBe(true);
    expect(cleanTitle('## **Fix the `login` bug**\n\nBecause…')).toBe('Fix the login bug');
  });
});
