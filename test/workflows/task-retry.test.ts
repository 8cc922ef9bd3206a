import { Context } from '@temporalio/activity';
import { Worker } from '@temporalio/worker';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localHostId } from '../../activities/hosts/host-id.js';
import { createActivities, type LoomActivities } from '../../activities/index.js';
import type { MessageWithParts } from '../../core/records/message.js';
import { bundleWorkflows, PROJECT_ROOT } from '../../worker/bundle.js';
import { FAIL_TASK_MARK } from '../../testkit/temporal/failing-task-interceptor.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';

let env: LoomTestEnv;
let worker: Worker;
let running: Promise<void>;
/** Which local activity calls fail their workflow task (once each), set by each test. */
let failsTask: (activity: string, input: { synthetic?: boolean }) => boolean = () => false;
/** `workflowId:activity:synthetic?` of every local activity call whose workflow task was failed. */
const failedAfter = new Set<string>();

/**
 * A local activity the test picks writes what it writes, then has its workflow task fail: the task
 * is tried again from its start, as when a worker dies right after its local activities wrote to
 * the store. Each call fails its task once.
 */
function failingOnceAfterLocalActivities(activities: LoomActivities): LoomActivities {
  const wrapped: Record<string, unknown> = {};
  for (const [name, activity] of Object.entries(activities) as [
    string,
    (input: { synthetic?: boolean }) => Promise<unknown>,
  ][]) {
    wrapped[name] = async (input: { synthetic?: boolean }) => {
      const result = await activity(input);
      const { isLocal, workflowExecution } = Context.current().info;
      const key = `${workflowExecution?.workflowId}:${name}:${input.synthetic ? 'synthetic' : ''}`;
      if (!isLocal || !failsTask(name, input) || failedAfter.has(key)) return result;
      failedAfter.add(key);
      return { ...(typeof result === 'object' ? result : {}), [FAIL_TASK_MARK]: true };
    };
  }
  return wrapped as LoomActivities;
}

const failedFor = (sessionId: string) =>
  [...failedAfter].filter((key) => key.startsWith(sessionId)).map((key) => key.split(':')[1]);

beforeAll(async () => {
  env = await createLoomTestEnv({
    files: {
      'notes.md': '# Notes\nremember the milk\n',
      '.loom/command/find-tests.md':
        '---\ndescription: Find the tests\nagent: explore\n---\nFind the test files under $1 and list them.\n',
    },
  });
  const code = await bundleWorkflows('plain', [
    join(PROJECT_ROOT, 'testkit', 'temporal', 'failing-task-interceptor.ts'),
  ]);
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: env.taskQueue,
    workflowBundle: { code },
    // A failed task's retry may wait on the sticky queue for this long.
    stickyQueueScheduleToStartTimeout: '1 second',
    // This worker is the workspace's host: the runs' local tools and config reads run in it.
    activities: failingOnceAfterLocalActivities(
      createActivities({ store: env.store, env: env.env, dataDir: env.dataDir, hostId: localHostId(env.env) }),
    ),
  });
  running = worker.run();
  // Workspace work that is not a local activity (a command's expansion) goes to the host's queue.
  await env.worker({ serve: 'host' });
}, 120_000);

afterAll(async () => {
  worker?.shutdown();
  await running;
  await env?.close();
});

/** Each message as `role: text`, so a message stored twice shows twice. */
function transcript(messages: MessageWithParts[]): string[] {
  return messages.map((m) => {
    const first = m.parts[0];
    const text =
      first?.type === 'text'
        ? first.text
        : first?.type === 'tool'
          ? `${first.tool} call`
          : (first?.type ?? '(no parts)');
    return `${m.info.role}${m.info.role === 'assistant' && m.info.summary ? ' summary' : ''}: ${text.slice(0, 80)}`;
  });
}

describe('a workflow task tried again after its local activities wrote to the store', () => {
  it('leaves one copy of the prompt, the tool call and the answer', async () => {
    failsTask = (activity) => activity === 'saveUserMessage' || activity === 'runTool';
    env.model.setScript([
      {
        when: { lastUser: 'Read the notes', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'read', args: { filePath: 'notes.md' } }] },
      },
      { when: { lastRole: 'tool' }, reply: { text: 'The notes say: remember the milk.' } },
    ]);
    const { sessionId, result } = await env.start('Read the notes');
    await result();
    expect(transcript(await env.store.messages(sessionId))).toEqual([
      'user: Read the notes',
      'assistant: read call',
      'assistant: The notes say: remember the milk.',
    ]);
    // The test failed the tasks it meant to: after the prompt was stored and after the tool ran.
    expect(failedFor(sessionId)).toEqual(['saveUserMessage', 'runTool']);
    const read = (await env.store.messages(sessionId))[1].parts[0];
    expect(read).toMatchObject({ type: 'tool', tool: 'read', state: { status: 'completed' } });
    await env.checkReplay(sessionId, 'retried-tasks');
  });

  it('leaves one copy of a compaction request and the prompt that follows an automatic compaction', async () => {
    failsTask = (activity, input) =>
      activity === 'saveCompactionRequest' || (activity === 'saveUserMessage' && input.synthetic === true);
    env.model.setScript([
      {
        when: { lastUser: 'Work through the notes', lastRole: 'user' },
        reply: {
          toolCalls: [{ name: 'read', args: { filePath: 'notes.md' } }],
          usage: { prompt_tokens: 2600, completion_tokens: 10 },
        },
      },
      {
        when: { lastUser: /Write a detailed continuation prompt/ },
        reply: { text: '## Goal\nWork through the notes.' },
      },
      { when: { lastUser: /Continue if you have next steps/ }, reply: { text: 'Finished after compacting.' } },
    ]);
    const { sessionId, result } = await env.start('Work through the notes', { model: 'scripted/tiny' });
    await result();
    expect(transcript(await env.store.messages(sessionId))).toEqual([
      'user: Work through the notes',
      'assistant: read call',
      'user: compaction',
      'assistant summary: ## Goal\nWork through the notes.',
      expect.stringMatching(/^user: Continue if you have next steps/),
      'assistant: Finished after compacting.',
    ]);
    expect(failedFor(sessionId)).toEqual(['saveCompactionRequest', 'saveUserMessage']);
  });

  it("leaves one copy of a command's subtask message, its task step and the subagent's messages", async () => {
    failsTask = (activity, input) =>
      activity === 'saveSubtaskMessage' || activity === 'openTaskStep' || input.synthetic === true;
    env.model.setScript([
      { when: { lastUser: /Find the test files under src/ }, reply: { text: 'Tests: src/a.test.ts' } },
      {
        when: { lastUser: /Summarize the task tool output/ },
        reply: { text: 'The explore agent found one test file.' },
      },
    ]);
    const { sessionId, result } = await env.start('/find-tests src');
    await result();
    expect(transcript(await env.store.messages(sessionId))).toEqual([
      'user: subtask',
      'assistant: task call',
      'user: Summarize the task tool output above and continue with your task.',
      'assistant: The explore agent found one test file.',
    ]);
    const [child] = await env.store.children(sessionId);
    expect(transcript(await env.store.messages(child.id))).toEqual([
      'user: Find the test files under src and list them.',
      'assistant: Tests: src/a.test.ts',
    ]);
    expect(failedFor(sessionId)).toEqual(['saveSubtaskMessage', 'openTaskStep', 'saveUserMessage']);
  });
});
