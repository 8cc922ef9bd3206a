import type { VersionAdopted } from '../../worker/versioning/adopt.js';

/**
 * What a person should hear about a worker's build once it runs: that it became the current
 * version (and which one it replaced), that another build stays current, or why it could not
 * take its place. Nothing when it was current already.
 */
export function versionReport(
  version: VersionAdopted | { error: string } | undefined,
  taskQueue: string,
): string | undefined {
  if (!version) return undefined;
  if ('error' in version)
    return (
      `Warning: this worker could not make its build current in its worker deployment: ${version.error}. ` +
      `New runs may wait for a worker of the current build; \`loom deploy\` tries again, LOOM_WORKER_VERSIONING=off runs without versions.`
    );
  const { deploymentName, buildId, current, replaced, deleted } = version;
  const pruned = deleted.length > 0 ? ` Drained builds deleted: ${deleted.join(', ')}.` : '';
  if (replaced)
    return `Build ${buildId} is now current in worker deployment "${deploymentName}": new runs use it; ${runsLine(version, replaced)}${pruned}`;
  if (current !== buildId)
    return (
      `This worker runs build ${buildId}; build ${current ?? '(none)'} is current in worker deployment "${deploymentName}" ` +
      `(task queue "${taskQueue}"), so new runs go to its workers. \`loom deploy\` makes this build current.`
    );
  return undefined;
}

/** What became of the runs open on older builds when this one became current. */
function runsLine({ runs }: VersionAdopted, replaced: string): string {
  if (!runs || runs.moved.length + runs.kept.length === 0) return `runs started on ${replaced} finish on its workers.`;
  const moved =
    runs.moved.length > 0
      ? `${runs.moved.length} open run(s) of older builds moved here (their history replays on this code)`
      : '';
  const builds = [...new Set(runs.kept.map((run) => run.buildId))].join(', ');
  const kept =
    runs.kept.length > 0
      ? `${runs.kept.length} open run(s) stay on ${builds}, whose code this build cannot replay: they finish once a worker of that build runs (\`loom deploy --status\`)`
      : '';
  return `${[moved, kept].filter(Boolean).join('; ')}.`;
}
