import type { ActivityDeps } from './deps.js';
import { createBatchActivities } from './batch/batch-activities.js';
import { createBudgetActivities } from './budget/budget-activities.js';
import { createBatchCallActivities } from './batch/batch-call-activities.js';
import { createBatchIsolationActivities } from './batch/isolation-activities.js';
import { createBatchTaskEndActivities } from './batch/task-end-activities.js';
import { createCommandActivities } from './session/command-activities.js';
import { createModelActivities } from './model/call-model-activities.js';
import { createCompactionActivities } from './model/compact-activities.js';
import { createTitleActivities } from './model/title-activities.js';
import { createPruneActivities } from './session/prune-activities.js';
import { createPermissionActivities } from './permissions/permission-activities.js';
import { createRunConfigActivities } from './config/run-config-activities.js';
import { createSessionActivities } from './session/session-activities.js';
import { createTaskActivities } from './session/task-activities.js';
import { createBackgroundDeliveryActivities } from './session/background-delivery-activities.js';
import { createUserMessageActivities } from './session/user-message-activities.js';
import { createToolActivities } from './tools/running/run-tool-activities.js';
import { createHostStatusActivities } from './hosts/host-status-activities.js';
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
