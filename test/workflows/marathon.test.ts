import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolPart } from '../../core/records/part.js';
import { workflowBundlePath } from '../../worker/bundle.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv({ files: { 'notes.md': '# Notes\n' } });
  await env.worker();
});
afterAll(() => env?.close());

const STEPS = Number(process.env.LOOM_MARATHON_STEPS ?? 2000);

describe('a 2,000-step session', () => {
  it('completes through compactions and continue-as-new, with a complete transcript and small histories', async () => {
    let steps = 0;
    env.model.setScript([
      {
        name: 'summary',
        when: { lastUser: /Write a detailed continuation prompt/ },
        reply: { text: `## Goal\nKeep going to ${STEPS}.` },
      },
      {
        name: 'step',
        reply: () => {
          steps++;
          // Alternating limits: identical calls in a row would trip the doom-loop guard.
          return steps < STEPS
            ? { toolCalls: [{ name: 'read', args: { filePath: 'notes.md', limit: 1 + (steps % 2) } }] }
            : { text: `Done after ${steps} steps.` };
        },
      },
    ]);
    const started = Date.now();
    const { sessionId, result } = await env.start('Keep going until you are told to stop', { model: 'scripted/tiny' });
    expect((await result()).text).toBe(`Done after ${STEPS} steps.`);
    const seconds = (Date.now() - started) / 1000;

    const runs = [];
    for await (const run of env.client.workflow.list({ query: `WorkflowId = '${sessionId}'` })) runs.push(run);
    expect(runs.length).toBeGreaterThan(2);
    for (const run of runs) {
      expect(run.historyLength).toBeLessThan(5000);
      expect(run.historySize).toBeLessThan(4 * 1024 * 1024);
    }

    const messages = await env.store.messages(sessionId);
    const ids = messages.map((m) => m.info.id);
    expect([...ids].sort()).toEqual(ids);
    const answers = messages.filter((m) => m.info.role === 'assistant' && !m.info.summary);
    expect(answers).toHaveLength(STEPS);
    const stepNumbers = answers.map((m) => (m.info.role === 'assistant' ? m.info.step : 0));
    expect(stepNumbers.every((step, i) => i === 0 || step > stepNumbers[i - 1])).toBe(true);
    const tools = answers.flatMap((m) => m.parts).filter((p): p is ToolPart => p.type === 'tool');
    expect(tools).toHaveLength(STEPS - 1);
    expect(tools.every((p) => p.state.status === 'completed')).toBe(true);
    const compactions = messages.filter((m) => m.info.role === 'assistant' && m.info.summary).length;
    expect(compactions).toBeGreaterThan(0);

    // A worker that lost the run from its cache replays its history: the longest run replays whole.
    const longest = runs.reduce((a, b) => (b.historyLength > a.historyLength ? b : a));
    const history = await env.client.workflow.getHandle(sessionId, longest.runId).fetchHistory();
    const replayStart = Date.now();
    await Worker.runReplayHistory({ workflowBundle: { codePath: await workflowBundlePath() } }, history, sessionId);
    const replaySeconds = (Date.now() - replayStart) / 1000;
    console.log(
      `2,000 steps: ${seconds.toFixed(1)} s (${(STEPS / seconds).toFixed(0)} steps/s), ${runs.length} runs, ${compactions} compactions; ` +
        `replaying the longest run (${longest.historyLength} events): ${replaySeconds.toFixed(1)} s`,
    );
  }, 600_000);
});
