import { describe, expect, it } from 'vitest';
import { BatchTaskInput } from '../../core/batch/batch.js';

const problem = (directory: string) => {
  const parsed = BatchTaskInput.safeParse({ description: 'd', prompt: 'p', directory });
  return parsed.success
    ? undefined
    : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
};

describe("a batch task's directory", () => {
  it('takes a folder written relative to the batch directory', () => {
    for (const directory of ['a', 'packages/a', './a/', 'a/../b', '.']) expect(problem(directory)).toBeUndefined();
  });

  it('refuses an absolute path and one that leaves the batch directory', () => {
    for (const directory of ['/etc', '..', '../outside', 'a/../../b']) {
      expect(problem(directory)).toBe(
        `directory: must be a folder inside the batch's directory, written relative to it (not "${directory}")`,
      );
    }
  });
});
