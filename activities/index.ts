import type { ActivityDeps } from './deps.js';
import { createBatchActivities } from './batch.js';
import { createBudgetActivities } from './budget/budget-activities.js';
import { createBatchCallActivities } from './batch-call.js';
import { createBatchIsolationActivities } from './batch-isolation.js';
import { createBatchTaskEndActivities } from './batch-task-ends.js';
import { createCommandActivities } from './command-run.js';
import { createModelActivities } from './model/call-model.js';
import { createCompactionActivities } from './model/compact.js';
import { createTitleActivities } from './model/title.js';
import { createPruneActivities } from './prune.js';
import { createPermissionActivities } from './permissions.js';
import { createRunConfigActivities } from './run-config.js';
import { createSessionActivities } from './session.js';
import { createTaskActivities } from './task.js';
import { createBackgroundDeliveryActivities } from './background-delivery.js';
import { createUserMessageActivities } from './user-message.js';
import { createToolActivities } from './tools/run-tool.js';
import { createHostStatusActivities } from './hosts/host-status.js';
import { createFilesActivities } from './snapshot/files-activities.js';
import { createSnapshotActivities } from './snapshot/step-activities.js';
import { guardWorkspaceActivities } from './hosts/workspace-guard.js';

export type { ActivityDeps } from './deps.js';

/** Every activity the worker registers, built around one store. */
export function createActivities(deps: ActivityDeps) {
  const activities = {
    ...createSessionActivities(deps),
    ...createRunConfigActivities(deps),
    ...createPermissionActivities(deps),
    ...createTaskActivities(deps),
    ...createBackgroundDeliveryActivities(deps),
    ...createUserMessageActivities(deps),
    ...createCommandActivities(deps),
    ...createBatchActivities(deps),
    ...createBatchCallActivities(deps),
    ...createBatchIsolationActivities(deps),
    ...createBatchTaskEndActivities(),
    ...createModelActivities(deps),
    ...createCompactionActivities(deps),
    ...createTitleActivities(deps),
    ...createPruneActivities(deps),
    ...createToolActivities(deps),
    ...createHostStatusActivities(),
    ...createSnapshotActivities(deps),
    ...createFilesActivities(deps),
    ...createBudgetActivities(deps),
  };
  return guardWorkspaceActivities(activities, deps.hostId);
}

export type LoomActivities = ReturnType<typeof createActivities>;
