import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workflowBundlePath } from '../../worker/bundle.js';
import { installQuietRuntime } from '../../worker/runtime.js';
import { HISTORIES_DIR } from '../support/loom-env.js';

installQuietRuntime('ERROR');

/**
 * Histories recorded from the main scenarios (refresh them with `LOOM_RECORD_HISTORIES=1 npm test`
 * when a change is meant to alter what the workflow does). Today's workflow code must replay every
 * one of them: a change that would break running sessions fails here.
 */
const fixtures = readdirSync(HISTORIES_DIR).filter((name) => name.endsWith('.json'));

describe('replay of recorded histories', () => {
  it('has recorded histories to replay', () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(5);
  });

  it.each(fixtures)('%s replays without non-determinism', async (fixture) => {
    const json = JSON.parse(readFileSync(join(HISTORIES_DIR, fixture), 'utf8'));
    const history = historyFromJSON(json);
    const workflowId = `replay-${basename(fixture, '.json')}`;
    await expect(
      Worker.runReplayHistory({ workflowBundle: { codePath: await workflowBundlePath() } }, history, workflowId),
    ).resolves.toBeUndefined();
  });
});
