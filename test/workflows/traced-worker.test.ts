// Tracing is switched on per worker, so a run may move between workers that trace and workers that
// do not (a rolling change of settings, a worker restarted with other variables). Both must replay
// each other's runs: the tracing interceptors draw no randomness and add no awaits a run sees.
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowBundlePath } from '../../worker/bundle.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { startOtlpReceiver, type OtlpReceiver } from '../../testkit/otlp/receiver.js';

let env: LoomTestEnv;
let receiver: OtlpReceiver;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  // The exporter reads the variables of the process that sends.
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.url;
  env = await createLoomTestEnv({ files: { 'a.md': 'alpha\n', 'b.md': 'beta\n' } });
  await env.worker({ env: { ...env.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } });
});
afterAll(async () => {
  await env?.close();
  await receiver?.stop();
  delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
});

describe('a traced worker', () => {
  it('runs subagents and parallel tool calls whose history an untraced worker replays, and the other way round', async () => {
    env.model.setScript([
      {
        when: { lastUser: 'Compare the notes', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Read a', prompt: 'Read a.md.', subagent_type: 'explore' } },
            { name: 'task', args: { description: 'Read b', prompt: 'Read b.md.', subagent_type: 'explore' } },
            { name: 'glob', args: { pattern: '*.md' } },
          ],
        },
      },
      {
        when: { lastUser: /^Read (a|b)\.md\.$/, lastRole: 'user' },
        reply: (request) => ({ toolCalls: [{ name: 'read', args: { filePath: request.lastUser.slice(5, 9) } }] }),
      },
      { when: { lastUser: /^Read (a|b)\.md\.$/, lastRole: 'tool' }, reply: { text: 'read it' } },
      { when: { lastUser: 'Compare the notes', lastRole: 'tool' }, reply: { text: 'alpha and beta' } },
    ]);
    const { sessionId, result } = await env.start('Compare the notes');
    expect((await result()).text).toBe('alpha and beta');

    // The plain bundle (a worker without tracing), then the traced one (this run's own kind).
    await env.checkReplay(sessionId, 'traced-subagents');
    const history = await env.client.workflow.getHandle(sessionId).fetchHistory();
    await Worker.runReplayHistory(
      { workflowBundle: { codePath: await workflowBundlePath('traced') } },
      history,
      sessionId,
    );
    for (const child of await env.store.children(sessionId)) await env.checkReplay(child.id);

    const spans = await receiver.waitFor(
      (all) =>
        all.filter((span) => span.name === 'execute_tool task').length === 2 &&
        all.some((span) => span.name === 'execute_tool glob'),
    );
    expect(
      new Set(
        spans.filter((span) => span.name === 'execute_tool read').map((span) => span.attributes['loom.session.id']),
      ).size,
    ).toBe(2);
  });
});
