import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';

type WorkflowService = temporal.api.workflowservice.v1.WorkflowService;

/** An open run pinned to a build that is no longer current. */
export interface StrandedRun {
  workflowId: string;
  runId: string;
  buildId: string;
}

/** What `moveReplayableRuns` did: runs moved to the current build, and those left on theirs. */
export interface RunsMoved {
  moved: StrandedRun[];
  kept: StrandedRun[];
}

const PINNED_OVERRIDE = 1; // PinnedOverrideBehavior.PINNED_OVERRIDE_BEHAVIOR_PINNED

/**
 * Moves the deployment's open runs pinned to older builds onto `buildId` when its workflow code
 * replays their history so far, checked by replaying each with `workflowCodePath`, so a run is
 * never handed to code that would decide differently. The others stay on their build and finish
 * once a worker of it runs. On one machine this is what lets an upgrade leave no run waiting for
 * code that is gone; on several it drains old builds sooner.
 */
export async function moveReplayableRuns(
  service: WorkflowService,
  namespace: string,
  target: { deploymentName: string; buildId: string; workflowCodePath: string },
  identity: string,
): Promise<RunsMoved> {
  const stranded = await openRunsOnOtherBuilds(service, namespace, target.deploymentName, target.buildId);
  if (stranded.length === 0) return { moved: [], kept: [] };
  const replayable = new Set<string>();
  const histories = async function* () {
    for (const run of stranded) yield { workflowId: run.workflowId, history: await historyOf(service, namespace, run) };
  };
  for await (const result of Worker.runReplayHistories(
    { workflowBundle: { codePath: target.workflowCodePath } },
    histories(),
  ))
    if (!result.error) replayable.add(result.runId);
  const moved: StrandedRun[] = [];
  const kept: StrandedRun[] = [];
  for (const run of stranded) {
    if (!replayable.has(run.runId)) {
      kept.push(run);
      continue;
    }
    try {
      await service.updateWorkflowExecutionOptions({
        namespace,
        workflowExecution: { workflowId: run.workflowId, runId: run.runId },
        workflowExecutionOptions: {
          versioningOverride: {
            pinned: {
              behavior: PINNED_OVERRIDE,
              version: { deploymentName: target.deploymentName, buildId: target.buildId },
            },
          },
        },
        updateMask: { paths: ['versioning_override'] },
        identity,
      });
      moved.push(run);
    } catch {
      kept.push(run); // It ended meanwhile, or another worker moved it.
    }
  }
  return { moved, kept };
}

async function openRunsOnOtherBuilds(
  service: WorkflowService,
  namespace: string,
  deploymentName: string,
  buildId: string,
): Promise<StrandedRun[]> {
  const runs: StrandedRun[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await service.listWorkflowExecutions({
      namespace,
      query: `TemporalWorkerDeployment = ${JSON.stringify(deploymentName)} AND ExecutionStatus = "Running"`,
      pageSize: 500,
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    for (const { execution } of page.executions ?? []) {
      if (!execution?.workflowId || !execution.runId) continue;
      // The list leaves out a run's versioning; describing it says where it is pinned.
      const described = await service.describeWorkflowExecution({ namespace, execution }).catch(() => undefined); // Ended and gone meanwhile.
      const pinnedTo = described?.workflowExecutionInfo?.versioningInfo?.deploymentVersion?.buildId;
      if (pinnedTo && pinnedTo !== buildId)
        runs.push({ workflowId: execution.workflowId, runId: execution.runId, buildId: pinnedTo });
    }
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return runs;
}

async function historyOf(
  service: WorkflowService,
  namespace: string,
  run: StrandedRun,
): Promise<temporal.api.history.v1.IHistory> {
  const events: temporal.api.history.v1.IHistoryEvent[] = [];
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await service.getWorkflowExecutionHistory({
      namespace,
      execution: { workflowId: run.workflowId, runId: run.runId },
      ...(nextPageToken ? { nextPageToken } : {}),
    });
    events.push(...(page.history?.events ?? []));
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  return { events };
}
