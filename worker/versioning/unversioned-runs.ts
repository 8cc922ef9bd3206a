import type { temporal } from '@temporalio/proto';

type WorkflowService = temporal.api.workflowservice.v1.WorkflowService;

/**
 * The oldest Loom line whose runs this Loom's workflow code replays. Loom 0.1's workers were
 * unversioned, so its runs carry no build; 0.2 (the bridge) replays them, later lines do not. A
 * roll-back to 0.2 while such runs are open is made with 0.2's own `loom deploy`.
 */
export const OLDEST_REPLAYED_LINE = '0.2';

/** How many of the open unversioned runs a refusal names. */
const NAMED = 5;

/** A build that would become current while runs it cannot replay are open on its task queue. */
export class UnversionedRunsOpen extends Error {
  override name = 'UnversionedRunsOpen';
  constructor(
    readonly count: number,
    readonly workflowIds: string[],
    taskQueue: string,
    buildId: string,
  ) {
    const more = count > workflowIds.length ? `, and ${count - workflowIds.length} more` : '';
    super(
      `${count} run(s) that ran on a worker without versioning (Loom 0.1, or LOOM_WORKER_VERSIONING=off) ` +
        `are still open on task queue "${taskQueue}": ${workflowIds.join(', ')}${more}. ` +
        `As the current build, ${buildId} would get their next task, and this Loom replays only runs of ` +
        `Loom ${OLDEST_REPLAYED_LINE} and later: it is not made current. Either let them finish on the Loom that ran ` +
        `them (its \`loom worker\`, with LOOM_WORKER_VERSIONING=off if that is how they ran), move them to Loom ` +
        `${OLDEST_REPLAYED_LINE} (its \`loom deploy\`), or end them now: \`loom cancel --terminate <session>\` ` +
        `(tools they have running are not stopped). Then start this worker, or \`loom deploy\`, again.`,
    );
  }
}

/**
 * Refuses (throws `UnversionedRunsOpen`) to let `buildId` become current while open runs on
 * `taskQueue` ran on a worker without a deployment version: Temporal would send their next task to
 * it, whose code cannot replay them. Runs of older builds are pinned and never go to it. (A run
 * that took a task on an unversioned worker has `BuildIds` "unversioned", and no deployment.)
 */
export async function refuseUnversionedRuns(
  service: WorkflowService,
  namespace: string,
  target: { taskQueue: string; buildId: string },
): Promise<void> {
  // `BuildIds` lists the builds that completed a task of the run: a run none has started (one queued
  // before the first worker polled) has none, and runs on whichever build polls first.
  const query = `TaskQueue = ${JSON.stringify(target.taskQueue)} AND ExecutionStatus = "Running" AND TemporalWorkerDeployment IS NULL AND BuildIds IS NOT NULL`;
  const { count } = await service.countWorkflowExecutions({ namespace, query });
  const total = Number(count ?? 0);
  if (total === 0) return;
  const page = await service.listWorkflowExecutions({ namespace, query, pageSize: NAMED });
  const ids = (page.executions ?? []).flatMap(({ execution }) => (execution?.workflowId ? [execution.workflowId] : []));
  throw new UnversionedRunsOpen(Math.max(total, ids.length), ids, target.taskQueue, target.buildId);
}
