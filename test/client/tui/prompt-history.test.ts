import { describe, expect, it } from 'vitest';
import { bufferOf, insertText, type PromptBuffer } from '../../../client/tui/input/prompt-buffer.js';
import {
  downRecallsHistory,
  promptHistory,
  recallNext,
  recallPrevious,
  rememberPrompt,
  upRecallsHistory,
  type PromptHistory,
} from '../../../client/tui/input/prompt-history.js';

/** What a person sees after pressing ↑ or ↓ the way the prompt component handles it. */
function press(key: 'up' | 'down', state: { history: PromptHistory; buffer: PromptBuffer }) {
  const step =
    key === 'up'
      ? upRecallsHistory(state.buffer) && recallPrevious(state.history, state.buffer)
      : downRecallsHistory(state.history, state.buffer) && recallNext(state.history);
  return step || state;
}

describe('prompt history', () => {
  const history = promptHistory(['fix the tests', 'fix the tests', '  ', 'explain\nthe build', 'add a flag']);

  it('keeps past prompts oldest first, without blanks or repeats in a row', () => {
    expect(history.entries).toEqual(['fix the tests', 'explain\nthe build', 'add a flag']);
  });

  it('up on the first line recalls the last prompt, and down brings back the draft as it was', () => {
    const draft = bufferOf('half-typed idea', 4);
    const up = press('up', { history, buffer: draft });
    expect(up.buffer.text).toBe('add a flag');
    const down = press('down', up);
    expect(down.buffer).toEqual(draft);
    expect(press('down', down).buffer).toEqual(draft);
  });

  it('steps back through every prompt and stops at the oldest', () => {
    let state = { history, buffer: bufferOf('') };
    const seen: string[] = [];
    for (let i = 0; i < 5; i++) {
      state = press('up', state);
      seen.push(state.buffer.text);
    }
    expect(seen).toEqual(['add a flag', 'explain\nthe build', 'fix the tests', 'fix the tests', 'fix the tests']);
  });

  it('moves through a multi-line prompt before stepping on: ↑ only from its first line, ↓ only from its last', () => {
    const draft = bufferOf('draft\nsecond line');
    expect(upRecallsHistory(draft)).toBe(false);
    const recalled = press('up', press('up', { history, buffer: bufferOf('') }));
    expect(recalled.buffer).toMatchObject({ text: 'explain\nthe build', cursor: 0 });
    expect(downRecallsHistory(recalled.history, recalled.buffer)).toBe(false);
    const atEnd = { ...recalled, buffer: bufferOf(recalled.buffer.text) };
    expect(downRecallsHistory(atEnd.history, atEnd.buffer)).toBe(true);
    expect(press('down', atEnd).buffer).toMatchObject({ text: 'add a flag', cursor: 'add a flag'.length });
  });

  it('treats a long wrapped line as several rows when given the width', () => {
    const long = bufferOf('a prompt long enough to wrap');
    expect(upRecallsHistory(long)).toBe(true);
    expect(upRecallsHistory(long, 10)).toBe(false);
  });

  it('does nothing on down while the draft is shown', () => {
    expect(recallNext(history)).toBeUndefined();
    expect(downRecallsHistory(history, bufferOf(''))).toBe(false);
  });

  it('remembers a submitted prompt as the newest, and shows an empty draft', () => {
    const recalled = recallPrevious(history, insertText(bufferOf(''), 'draft'))!;
    const after = rememberPrompt(recalled.history, 'run the linter');
    expect(after.entries.at(-1)).toBe('run the linter');
    expect(after.position).toBe(after.entries.length);
    expect(recallPrevious(after, bufferOf(''))?.buffer.text).toBe('run the linter');
  });
});
