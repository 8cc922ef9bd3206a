import pc from 'picocolors';
import { errorMessage } from '../../core/text/error-message.js';
import { grpcStatus } from '../../worker/connection/error-details.js';
import { describeDeployment, type Deployment } from '../../worker/versioning/deployments.js';
import { deployBuild, type VersionAdopted } from '../../worker/versioning/adopt.js';
import { loomBuildId, versioningFrom } from '../../worker/versioning/settings.js';
import { UnversionedRunsOpen } from '../../worker/versioning/unversioned-runs.js';
import { workflowBundlePath } from '../../worker/bundle.js';
import { InputError } from '../input-error.js';
import type { ClientContext } from '../context.js';

export interface DeployOptions {
  /** Make this build current instead of this installation's (a roll-back to one still running). */
  buildId?: string;
  /** Only show the deployment's versions. */
  status?: boolean;
  json?: boolean;
}

/** How long `loom deploy` waits for a worker of the build to poll before it says to start one. */
const WORKER_WAIT_MS = 15_000;

/**
 * `loom deploy`: makes this installation's build (or `--build-id`'s) the current version of the
 * task queue's worker deployment, so new runs go to its workers while runs pinned to the build
 * before finish on theirs; deletes drained versions, and lists where each version stands.
 */
export async function deployCommand(context: ClientContext, options: DeployOptions): Promise<number> {
  const { taskQueue } = context.settings;
  const versioning = versioningFrom(context.env, taskQueue, 'never');
  if (!versioning)
    throw new InputError(
      'Worker versioning is off (LOOM_WORKER_VERSIONING=off): workers take any run, there is nothing to deploy.',
      2,
    );
  const { client, target } = await context.temporal();
  const service = client.workflowService;
  const { namespace } = target;
  const { deploymentName } = versioning;
  const buildId = options.buildId?.trim() || versioning.buildId;
  let deployed: VersionAdopted | undefined;
  if (!options.status) {
    try {
      deployed = await deployBuild(
        service,
        namespace,
        {
          deploymentName,
          taskQueue,
          buildId,
          // This installation's code can check, by replaying them, which runs of older builds it can take.
          ...(buildId === versioning.buildId ? { workflowCodePath: await workflowBundlePath('plain') } : {}),
        },
        // Another build's workers poll already or not at all; this installation's may be starting.
        { deadline: Date.now() + (options.buildId ? 0 : WORKER_WAIT_MS) },
      );
    } catch (error) {
      throw new InputError(deployRefusal(error, deploymentName, buildId, taskQueue));
    }
  }
  const { replaced, deleted = [], runs } = deployed ?? {};
  const deployment = await describeDeployment(service, namespace, deploymentName);
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify({ deployment: deploymentName, taskQueue, thisBuild: loomBuildId(), made: options.status ? undefined : buildId, replaced, deleted, moved: runs?.moved.map((run) => run.workflowId) ?? [], versions: deployment?.versions ?? [], current: deployment?.current })}\n`,
    );
    return 0;
  }
  if (!options.status) {
    context.report(
      replaced
        ? `Build ${buildId} is now current in worker deployment "${deploymentName}": new runs go to its workers; runs started on ${replaced} finish on theirs.`
        : `Build ${buildId} is current in worker deployment "${deploymentName}".`,
    );
    if (runs?.moved.length)
      context.report(
        `${runs.moved.length} open run(s) of older builds moved to it: their history replays on its code.`,
      );
    if (deleted.length > 0) context.report(`Drained builds deleted: ${deleted.join(', ')}.`);
  }
  process.stdout.write(deploymentLines(deployment, deploymentName, taskQueue).join('\n') + '\n');
  return 0;
}

function deployRefusal(error: unknown, deploymentName: string, buildId: string, taskQueue: string): string {
  if (error instanceof UnversionedRunsOpen) return error.message;
  if (grpcStatus(error)?.code === 5)
    return (
      `No worker of build ${buildId} has polled task queue "${taskQueue}" (worker deployment "${deploymentName}"): ` +
      `start \`loom worker\` from that version first, then run \`loom deploy\` again.`
    );
  return `Could not make build ${buildId} current in worker deployment "${deploymentName}": ${errorMessage(error)}`;
}

const STATUS_NOTES: Partial<Record<string, string>> = {
  current: 'new runs go here',
  draining: 'runs pinned to it are still open: keep its workers running',
  drained: 'no run needs it: its workers can stop',
  inactive: 'polled, never current',
};

function deploymentLines(deployment: Deployment | undefined, name: string, taskQueue: string): string[] {
  if (!deployment || deployment.versions.length === 0)
    return [`Worker deployment "${name}" (task queue "${taskQueue}") has no versions yet: start \`loom worker\`.`];
  const thisBuild = loomBuildId();
  const width = Math.max(...deployment.versions.map((version) => version.buildId.length));
  return [
    `Worker deployment "${name}" (task queue "${taskQueue}"):`,
    ...deployment.versions.map((version) => {
      const status = version.status === 'current' ? pc.green(version.status) : version.status;
      const note = STATUS_NOTES[version.status];
      const mine = version.buildId === thisBuild ? ' (this installation)' : '';
      return `  ${version.buildId.padEnd(width)}  ${status}${note ? ` · ${note}` : ''}${mine}`;
    }),
  ];
}
