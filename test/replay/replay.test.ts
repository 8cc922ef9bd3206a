import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workflowBundlePath, type BundleKind } from '../../worker/bundle.js';
import { installQuietRuntime } from '../../worker/runtime.js';
import { HISTORIES_DIR } from '../../testkit/loom/loom-env.js';

installQuietRuntime('ERROR');

/**
 * Histories recorded from the main scenarios (`LOOM_RECORD_HISTORIES=1 npx vitest run test/workflows`
 * records today's). Today's workflow code must replay every one of them, including those kept in
 * subfolders from earlier versions: a change that would break runs already under way fails here.
 */
const fixtures = readdirSync(HISTORIES_DIR, { recursive: true, encoding: 'utf8' }).filter((name) =>
  name.endsWith('.json'),
);

describe('replay of recorded histories', () => {
  it('has recorded histories to replay', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(20);
  });

  it.each(fixtures)('%s replays without non-determinism', async (fixture) => {
    await expect(replay(fixture, 'plain')).resolves.toBeUndefined();
  });

  // A worker that traces replays the runs of workers that did not (tracing switched on while runs are
  // under way): this version's histories, with the tracing interceptors in the bundle.
  it.each(fixtures.filter((name) => !name.includes('/')))('%s replays on a worker that traces', async (fixture) => {
    await expect(replay(fixture, 'traced')).resolves.toBeUndefined();
  });
});

async function replay(fixture: string, kind: BundleKind): Promise<void> {
  const history = historyFromJSON(JSON.parse(readFileSync(join(HISTORIES_DIR, fixture), 'utf8')));
  await Worker.runReplayHistory(
    { workflowBundle: { codePath: await workflowBundlePath(kind) } },
    history,
    `replay-${basename(fixture, '.json')}`,
  );
}
