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
      `${count} run(s) started before worker versioning (by Loom 0.1, or a worker with LOOM_WORKER_VERSIONING=off) ` +
        `are still open on task queue "${taskQueue}": ${workflowIds.join(', ')}${more}. ` +
        `As the current build, ${buildId} would get their next task, and this Loom replays only runs of ` +
        `Loom ${OLDEST_REPLAYED_LINE} and later: it is not made current. Upgrade through Loom ${OLDEST_REPLAYED_LINE} ` +
        `(\`loom deploy\` with ${OLDEST_REPLAYED_LINE} makes them move to it at their next task) or let them end ` +
        `(\`loom cancel <session>\`), then deploy again.`,
    );
  }
}

/**
 * Refuses (throws `UnversionedRunsOpen`) to let `buildId` become current while open runs on
 * `taskQueue` carry no deployment version: Temporal would send their next task to it, whose code
 * cannot replay them. Runs of older builds are pinned and never go to it. (`BuildIds IS NULL`
 * would miss them: a run that took a task on an unversioned worker has `BuildIds` "unversioned".)
 */
export async function refuseUnversionedRuns(
  service: WorkflowService,
  namespace: string,
  target: { taskQueue: string; buildId: string },
): Promise<void> {
  const query = `TaskQueue = ${JSON.stringify(target.taskQueue)} AND ExecutionStatus = "Running" AND TemporalWorkerDeployment IS NULL`;
  const { count } = await service.countWorkflowExecutions({ namespace, query });
  const total = Number(count ?? 0);
  if (total === 0) return;
  const page = await service.listWorkflowExecutions({ namespace, query, pageSize: NAMED });
  const ids = (page.executions ?? []).flatMap(({ execution }) => (execution?.workflowId ? [execution.workflowId] : []));
  throw new UnversionedRunsOpen(Math.max(total, ids.length), ids, target.taskQueue, target.buildId);
}
