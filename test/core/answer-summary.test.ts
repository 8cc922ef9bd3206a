import { describe, expect, it } from 'vitest';
import { answerSummary } from '../../core/text/answer-summary.js';

describe('answerSummary', () => {
  it('takes the first line of words after a heading, marks stripped', () => {
    expect(answerSummary('## Summary\n\nThe docs are **in order** and `npm test` passes.')).toBe(
      'The docs are in order and npm test passes.',
    );
    expect(answerSummary('# Result\n- Fixed [the parser](src/parse.ts)\n- Added a test')).toBe('Fixed the parser');
    expect(answerSummary('```ts\nconst x = 1;\n```')).toBe('const x = 1;');
  });

  it('falls back to a heading when there is nothing else, and cuts long lines', () => {
    expect(answerSummary('## All good ##')).toBe('All good');
    expect(answerSummary('')).toBe('');
    expect(answerSummary('word '.repeat(40), 20)).toBe('word word word word…');
  });
});
