import proto from '@temporalio/proto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { ScriptRule } from '../../testkit/model/scripted-model-script.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { startTemporalServer } from '../../testkit/temporal/temporal-server.js';

const KiB = 1024;
const bigFile = Array.from({ length: 400 }, (_, i) => `line ${String(i).padStart(4, '0')} ${'x'.repeat(40)}`).join(
  '\n',
);

/** Calls `read big.txt` until it has seen `steps - 1` results, then answers. */
function readUntil(steps: number): ScriptRule[] {
  return [
    {
      reply: (request) => {
        const seen = request.messages.filter((m) => m.role === 'tool').length;
        // A different offset each time: identical calls in a row would (rightly) trip the doom-loop guard.
        return seen < steps - 1
          ? { toolCalls: [{ name: 'read', args: { filePath: 'big.txt', offset: seen + 1 } }] }
          : { text: `Read it ${seen} times.` };
      },
    },
  ];
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function setUp(address?: string): Promise<LoomTestEnv> {
  const env = await createLoomTestEnv({ files: { 'big.txt': bigFile }, address });
  cleanups.push(() => env.close());
  await env.worker();
  return env;
}

describe('long sessions', () => {
  it('keeps history small: 50 steps with 20 KiB tool outputs stay under 2 MiB of history', async () => {
    expect(bigFile.length).toBeGreaterThan(17 * KiB);
    const env = await setUp();
    env.model.setScript(readUntil(50));
    const { sessionId, result } = await env.start('Read big.txt fifty times');
    const outcome = await result();
    expect(outcome).toMatchObject({ steps: 50, text: 'Read it 49 times.' });

    const parts = (await env.store.messages(sessionId)).flatMap((m) => m.parts);
    const outputs = parts.flatMap((p) =>
      p.type === 'tool' && p.state.status === 'completed' ? [p.state.output.length] : [],
    );
    expect(outputs).toHaveLength(49);
    expect(Math.min(...outputs)).toBeGreaterThan(20 * KiB);

    const history = await env.client.workflow.getHandle(sessionId).fetchHistory();
    const bytes = proto.temporal.api.history.v1.History.encode(history).finish().length;
    expect(bytes).toBeLessThan(2 * 1024 * KiB);
    expect(bytes).toBeLessThan(outputs.reduce((a, b) => a + b, 0) / 4);
  });

  it('continues as new when Temporal suggests it, keeping the conversation and the step count', async () => {
    const server = await startTemporalServer({
      binary: inject('temporalBinary'),
      dynamicConfig: ['limit.historyCount.suggestContinueAsNew=25'],
    });
    cleanups.push(() => server.teardown());
    const env = await setUp(server.address);
    env.model.setScript(readUntil(8));
    const { sessionId, result } = await env.start('Read big.txt eight times');
    expect(await result()).toMatchObject({ steps: 8, text: 'Read it 7 times.' });

    const runs = [];
    for await (const run of env.client.workflow.list({ query: `WorkflowId = '${sessionId}'` })) runs.push(run);
    expect(runs.length).toBeGreaterThan(1);
    const messages = await env.store.messages(sessionId);
    expect(messages.map((m) => m.info.role)).toEqual(['user', ...Array(8).fill('assistant')]);
    expect(
      messages.filter((m) => m.info.role === 'assistant').map((m) => (m.info.role === 'assistant' ? m.info.step : 0)),
    ).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(env.model.requests.at(-1)!.messages.filter((m) => m.role === 'tool')).toHaveLength(7);
    await env.checkReplay(sessionId, 'continued-as-new');
  });
});
