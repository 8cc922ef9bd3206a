import { describe, expect, it } from 'vitest';
import { backgroundPriority, TASK_PRIORITY } from '../../core/runs/task-priority.js';

describe('backgroundPriority', () => {
  it("puts a background subagent below its parent's run, never above it", () => {
    expect(backgroundPriority({ priorityKey: TASK_PRIORITY.interactive })).toEqual({
      priorityKey: TASK_PRIORITY.background,
    });
    expect(backgroundPriority({ priorityKey: TASK_PRIORITY.batchTask, fairnessKey: 'bat_1' })).toEqual({
      priorityKey: TASK_PRIORITY.batchTask,
    });
    // A run that names no place is at Temporal's default, above background.
    expect(backgroundPriority(undefined)).toEqual({ priorityKey: TASK_PRIORITY.background });
    expect(backgroundPriority({ priorityKey: 0 })).toEqual({ priorityKey: TASK_PRIORITY.background });
  });
});
