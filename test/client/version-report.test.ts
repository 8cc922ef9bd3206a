import { describe, expect, it } from 'vitest';
import { versionReport } from '../../client/temporal/version-report.js';
import type { VersionAdopted } from '../../worker/versioning/adopt.js';

const taken: VersionAdopted = {
  deploymentName: 'loom',
  buildId: '0.3.1+bbbb',
  current: '0.3.1+bbbb',
  replaced: '0.3.0+aaaa',
  deleted: [],
  runs: { moved: [{ workflowId: 'ses_moved', runId: 'r1', buildId: '0.3.0+aaaa' }], kept: [] },
};

describe('what a worker says of its build', () => {
  it('says nothing on one machine when a new build simply takes over (the first `loom run` after a build)', () => {
    expect(versionReport(taken, 'loom', true)).toBeUndefined();
    expect(versionReport({ ...taken, runs: undefined }, 'loom', true)).toBeUndefined();
  });

  it('on one machine, names the sessions an earlier build left and how to end them', () => {
    const kept = {
      ...taken,
      runs: { moved: [], kept: [{ workflowId: 'ses_old', runId: 'r2', buildId: '0.2.0+cccc' }] },
    };
    expect(versionReport(kept, 'loom', true)).toBe(
      '1 session(s) started by an earlier Loom (build 0.2.0+cccc) cannot continue on this one: ses_old. ' +
        'They go on once that Loom runs a worker again (`loom deploy --status` shows them), or `loom cancel --terminate <session>` ends one.',
    );
  });

  it('on a shared server, says in words that this build takes the new sessions and what became of the old ones', () => {
    const said = versionReport(taken, 'loom', false);
    expect(said).toContain(
      'This Loom (build 0.3.1+bbbb) now takes the new sessions of task queue "loom", in place of build 0.3.0+aaaa',
    );
    expect(said).toContain('1 open run(s) of older builds moved here');
  });
});
