import { expect, it } from 'vitest';
import { progressCounts } from '../../client/render/batch-progress.js';

it("counts a batch's tasks as its summary does: cancelled ones apart from done ones", () => {
  expect(progressCounts({ done: 1, failed: 0, cancelled: 5, running: 0, total: 6 })).toBe(
    '1 done · 0 failed · 5 cancelled of 6',
  );
  expect(progressCounts({ done: 3, failed: 1, cancelled: 0, running: 2, total: 8 })).toBe(
    '3 done · 1 failed · 2 running of 8',
  );
});
