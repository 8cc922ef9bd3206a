import type { Priority } from '@temporalio/common';

/**
 * Where Loom's runs stand in Temporal's task queues when workers are busy. A batch of hundreds of
 * tasks fills every worker slot and leaves a backlog; without priority a person's `loom run` queues
 * behind all of it, first in first out. Temporal hands out the lowest key first (1 to 5; 3 when
 * unset), and activities and child workflows inherit their workflow's priority unless given one.
 * Priority matters only while tasks wait: an idle worker takes whatever comes.
 */
export const TASK_PRIORITY = {
  /** A person waits on it: `loom run`, `loom resume`, a prompt from the web view or an editor. */
  interactive: 1,
  /** A batch's own run: cheap steps that start its tasks, so its window refills ahead of them. */
  batchControl: 2,
  /** Nobody waits on a background subagent; its parent has moved on. */
  background: 4,
  /** A batch's tasks: the bulk work that must not starve the levels above. */
  batchTask: 5,
} as const;

/** What Temporal assumes for a run that names no priority (the middle of 1..5). */
export const DEFAULT_PRIORITY_KEY = 3;

/** A run a person waits on. */
export const interactivePriority: Priority = { priorityKey: TASK_PRIORITY.interactive };

/**
 * A batch's own run and its tasks share one fairness key, the batch id: within a priority level
 * Temporal then takes turns between batches, so two batches share the workers evenly rather than
 * the one started first running to its end.
 */
export const batchControlPriority = (batchId: string): Priority => ({
  priorityKey: TASK_PRIORITY.batchControl,
  fairnessKey: batchId,
});

export const batchTaskPriority = (batchId: string): Priority => ({
  priorityKey: TASK_PRIORITY.batchTask,
  fairnessKey: batchId,
});

/**
 * A background subagent: below its parent, never above it (one started by a batch task stays with
 * the batch's tasks). Its fairness key is inherited from the parent.
 */
export function backgroundPriority(parent: Priority | undefined): Priority {
  return { priorityKey: Math.max(parent?.priorityKey || DEFAULT_PRIORITY_KEY, TASK_PRIORITY.background) };
}
