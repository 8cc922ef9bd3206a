import type { VersionAdopted } from '../../worker/versioning/adopt.js';

/**
 * What a person should hear about a worker's build once it runs: that it took over new sessions
 * from another build, that another build stays current, or why it could not take its place.
 * Nothing when it was current already; on one machine (the embedded dev server), where each new
 * Loom simply takes over, only what a person must know: sessions left to a build that is gone.
 */
export function versionReport(
  version: VersionAdopted | { error: string } | undefined,
  taskQueue: string,
  embedded = false,
): string | undefined {
  if (!version) return undefined;
  if ('error' in version)
    return (
      `Warning: this worker could not make its build current in its worker deployment: ${version.error}. ` +
      `New runs may wait for a worker of the current build; \`loom deploy\` tries again, LOOM_WORKER_VERSIONING=off runs without versions.`
    );
  const { deploymentName, buildId, current, replaced, deleted } = version;
  const pruned = deleted.length > 0 ? ` Drained builds deleted: ${deleted.join(', ')}.` : '';
  if (replaced && embedded) return keptLine(version);
  if (replaced)
    return `This Loom (build ${buildId}) now takes the new sessions of task queue "${taskQueue}", in place of build ${replaced}: ${runsLine(version, replaced)}${pruned}`;
  if (current !== buildId)
    return (
      `This worker runs build ${buildId}, but new sessions of task queue "${taskQueue}" go to build ${current ?? '(none)'} ` +
      `(the current one of worker deployment "${deploymentName}") and its workers. \`loom deploy\` hands them to this build.`
    );
  return undefined;
}

/** On one machine: the sessions an earlier Loom left that this one cannot continue, if any. */
function keptLine({ runs }: VersionAdopted): string | undefined {
  if (!runs || runs.kept.length === 0) return undefined;
  const builds = [...new Set(runs.kept.map((run) => run.buildId))].join(', ');
  const sessions = runs.kept.map((run) => run.workflowId).join(', ');
  return (
    `${runs.kept.length} session(s) started by an earlier Loom (build ${builds}) cannot continue on this one: ${sessions}. ` +
    'They go on once that Loom runs a worker again (`loom deploy --status` shows them), or `loom cancel --terminate <session>` ends one.'
  );
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
