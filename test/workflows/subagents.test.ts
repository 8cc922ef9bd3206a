import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolPart } from '../../core/records/part.js';
import type { RecordedRequest } from '../../testkit/model/scripted-model-script.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv({
    files: {
      'src/a.test.ts': 'test a\n',
      'src/b.test.ts': 'test b\n',
      'README.md': '# Demo\n',
      '.loom/command/find-tests.md':
        '---\ndescription: Find the tests\nagent: explore\n---\nFind the test files under $1 and list them.\n',
    },
    config: { max_concurrent_subagents: 8 },
  });
  await env.worker();
});
afterAll(() => env?.close());

const toolOutputs = (request: RecordedRequest) =>
  request.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
const taskParts = async (sessionId: string) =>
  (await env.store.messages(sessionId))
    .flatMap((m) => m.parts)
    .filter((p): p is ToolPart => p.type === 'tool' && p.tool === 'task');

describe('the task tool', () => {
  it('runs three subagents at once as child workflows and gives the parent their answers with session ids', async () => {
    env.model.setScript([
      {
        name: 'delegate',
        when: { lastUser: 'Survey the project', lastRole: 'user' },
        reply: {
          toolCalls: [
            {
              name: 'task',
              args: { description: 'Find the tests', prompt: 'List the test files.', subagent_type: 'explore' },
            },
            {
              name: 'task',
              args: { description: 'Read the readme', prompt: 'Summarise README.md.', subagent_type: 'explore' },
            },
            {
              name: 'task',
              args: { description: 'Count files', prompt: 'Count the files.', subagent_type: 'general' },
            },
          ],
        },
      },
      {
        name: 'tests',
        when: { lastUser: 'List the test files.', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'glob', args: { pattern: '**/*.test.ts' } }] },
      },
      {
        name: 'tests done',
        when: { lastUser: 'List the test files.', lastRole: 'tool' },
        reply: { text: 'Two test files.', delayMs: 800 },
      },
      { name: 'readme', when: { lastUser: 'Summarise README.md.' }, reply: { text: 'A demo project.', delayMs: 1200 } },
      { name: 'count', when: { lastUser: 'Count the files.' }, reply: { text: 'Three files.', delayMs: 1200 } },
      { name: 'answer', when: { lastUser: 'Survey the project', lastRole: 'tool' }, reply: { text: 'Surveyed.' } },
    ]);
    const { sessionId, result } = await env.start('Survey the project');
    expect((await result()).text).toBe('Surveyed.');

    const outputs = toolOutputs(env.model.requests.findLast((r) => r.rule === 'answer')!);
    expect(outputs).toHaveLength(3);
    expect(outputs[0]).toMatch(/^Two test files\.\n\n<task_metadata>\nsession_id: ses_\w+\n<\/task_metadata>$/);
    expect(outputs[1]).toMatch(/^A demo project\.\n\n<task_metadata>/);
    expect(outputs[2]).toMatch(/^Three files\.\n\n<task_metadata>/);

    const parts = await taskParts(sessionId);
    expect(parts.map((p) => p.state.status)).toEqual(['completed', 'completed', 'completed']);
    const childIds = parts.map((p) => (p.state.status === 'completed' ? String(p.state.metadata.sessionId) : ''));
    const [first] = parts;
    expect(first.state.status === 'completed' && first.state.metadata.summary).toEqual([
      expect.objectContaining({ tool: 'glob', status: 'completed' }),
    ]);

    const children = await env.store.children(sessionId);
    expect(children.map((c) => c.id).sort()).toEqual([...childIds].sort());
    expect(children.map((c) => c.title).sort()).toEqual([
      'Count files (@general subagent)',
      'Find the tests (@explore subagent)',
      'Read the readme (@explore subagent)',
    ]);

    const runs = [];
    for await (const run of env.client.workflow.list({
      query: `LoomRootSession = '${sessionId}' AND LoomParentSession = '${sessionId}'`,
    }))
      runs.push(run);
    expect(runs).toHaveLength(3);
    expect(runs.every((run) => run.parentExecution?.workflowId === sessionId)).toBe(true);
    const latestStart = Math.max(...runs.map((run) => run.startTime.getTime()));
    const earliestClose = Math.min(...runs.map((run) => run.closeTime!.getTime()));
    expect(latestStart).toBeLessThan(earliestClose);

    const explore = env.model.requests.findLast((r) => r.rule === 'readme')!;
    expect(explore.toolNames.sort()).toEqual(['bash', 'glob', 'grep', 'list', 'read', 'webfetch']);
    const general = env.model.requests.findLast((r) => r.rule === 'count')!;
    expect(general.toolNames).not.toContain('task');
    expect(general.toolNames).not.toContain('todowrite');
    await env.checkReplay(sessionId, 'three-subagents');
  });
});

const envelope = (output: string) => /session_id: (ses_\w+)/.exec(output)?.[1];

describe('resuming a subagent by session_id', () => {
  it('continues the same child session, and the model is shown its earlier messages', async () => {
    env.model.setScript([
      {
        name: 'r-first',
        times: 1,
        when: { lastUser: 'Research twice', lastRole: 'user' },
        reply: {
          toolCalls: [
            {
              name: 'task',
              args: { description: 'Research', prompt: 'Look into the parser.', subagent_type: 'general' },
            },
          ],
        },
      },
      {
        name: 'r-child-1',
        when: { lastUser: 'Look into the parser.' },
        reply: { text: 'The parser is in src/parse.ts.' },
      },
      {
        name: 'r-second',
        times: 1,
        when: { lastUser: 'Research twice', lastRole: 'tool' },
        reply: (r) => ({
          toolCalls: [
            {
              name: 'task',
              args: {
                description: 'Research more',
                prompt: 'Now the lexer.',
                subagent_type: 'general',
                session_id: envelope(String(r.messages.at(-1).content)),
              },
            },
          ],
        }),
      },
      { name: 'r-child-2', when: { lastUser: 'Now the lexer.' }, reply: { text: 'The lexer is next to it.' } },
      { name: 'r-done', when: { lastUser: 'Research twice', lastRole: 'tool' }, reply: { text: 'Done twice.' } },
    ]);
    const { sessionId, result } = await env.start('Research twice');
    expect((await result()).text).toBe('Done twice.');
    const [first, second] = await taskParts(sessionId);
    const childId = first.state.status === 'completed' ? first.state.metadata.sessionId : undefined;
    expect(second.state.status === 'completed' && second.state.metadata.sessionId).toBe(childId);
    expect(await env.store.children(sessionId)).toHaveLength(1);
    const resumed = env.model.requests.findLast((r) => r.rule === 'r-child-2')!;
    expect(resumed.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(JSON.stringify(resumed.messages)).toContain('The parser is in src/parse.ts.');
    const runs = [];
    for await (const run of env.client.workflow.list({ query: `WorkflowId = '${childId}'` })) runs.push(run);
    expect(runs).toHaveLength(2);
    await env.checkReplay(sessionId, 'resumed-subagent');
  });

  it('starts a new session for an unknown id and says so; refuses a session of another tree', async () => {
    const other = await env.start('Unrelated', { agent: 'build' });
    env.model.setScript([
      { name: 'u-other', when: { lastUser: 'Unrelated' }, reply: { text: 'ok' } },
      {
        name: 'u-calls',
        when: { lastUser: 'Reuse sessions', lastRole: 'user' },
        reply: {
          toolCalls: [
            {
              name: 'task',
              args: {
                description: 'Unknown',
                prompt: 'Hello from nowhere.',
                subagent_type: 'general',
                task_id: 'ses_00000000000000000000000000',
              },
            },
            {
              name: 'task',
              args: {
                description: 'Foreign',
                prompt: 'Hello from elsewhere.',
                subagent_type: 'general',
                session_id: other.sessionId,
              },
            },
          ],
        },
      },
      { name: 'u-child', when: { lastUser: /^Hello from/ }, reply: { text: 'child answer' } },
      { name: 'u-done', when: { lastUser: 'Reuse sessions', lastRole: 'tool' }, reply: { text: 'checked' } },
    ]);
    await other.result();
    const { result } = await env.start('Reuse sessions');
    await result();
    const [unknown, foreign] = toolOutputs(env.model.requests.findLast((r) => r.rule === 'u-done')!);
    expect(unknown).toMatch(
      /^\(No session ses_0+ exists, so this task started a new session: ses_\w+\.\)\n\nchild answer/,
    );
    expect(foreign).toContain(`Session ${other.sessionId} is not part of this session's tree`);
  });
});

describe('a busy subagent session', () => {
  it('returns a clear error, not a second run, when the session asked for is running', async () => {
    env.model.setScript([
      {
        name: 'b-first',
        when: { lastUser: 'Make a helper', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Helper', prompt: 'Be helpful.', subagent_type: 'general' } },
          ],
        },
      },
      { name: 'b-helper', when: { lastUser: 'Be helpful.' }, reply: { text: 'helping' } },
      { name: 'b-first-done', when: { lastUser: 'Make a helper', lastRole: 'tool' }, reply: { text: 'made' } },
      { name: 'b-slow', when: { lastUser: 'Work slowly on your own' }, reply: { text: 'slowly', delayMs: 3000 } },
      {
        name: 'b-reuse',
        when: { lastUser: 'Ask the helper again', lastRole: 'user' },
        reply: (r) => ({
          toolCalls: [
            {
              name: 'task',
              args: {
                description: 'Again',
                prompt: 'Once more.',
                subagent_type: 'general',
                session_id: envelope(JSON.stringify(r.messages)),
              },
            },
          ],
        }),
      },
      {
        name: 'b-done',
        when: { lastUser: 'Ask the helper again', lastRole: 'tool' },
        reply: { text: 'helper was busy' },
      },
    ]);
    const first = await env.start('Make a helper');
    await first.result();
    const [helper] = await env.store.children(first.sessionId);
    const standalone = await env.start('Work slowly on your own', {
      sessionId: helper.id,
      parentId: first.sessionId,
      agent: 'general',
    });
    await env.model.waitForRequest((r) => r.rule === 'b-slow', 20_000);
    const again = await env.start('Ask the helper again', { sessionId: first.sessionId });
    expect((await again.result()).text).toBe('helper was busy');
    const shown = toolOutputs(env.model.requests.findLast((r) => r.rule === 'b-done')!).at(-1)!;
    expect(shown).toContain(`Session ${helper.id} is busy: its current run has not finished.`);
    expect(shown).toContain(`session_id: ${helper.id}`);
    await standalone.result();
  });
});

describe('subagent failures and cancellation', () => {
  it('returns a failed subagent as an error that keeps its session id, and the parent goes on', async () => {
    env.model.setScript([
      {
        name: 'f-call',
        when: { lastUser: 'Delegate to a broken model', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Break', prompt: 'Fail please.', subagent_type: 'general' } },
          ],
        },
      },
      { name: 'f-child', when: { lastUser: 'Fail please.' }, reply: { status: 401, errorMessage: 'bad key' } },
      {
        name: 'f-done',
        when: { lastUser: 'Delegate to a broken model', lastRole: 'tool' },
        reply: { text: 'The subagent failed.' },
      },
    ]);
    const { sessionId, result } = await env.start('Delegate to a broken model');
    expect((await result()).text).toBe('The subagent failed.');
    const shown = toolOutputs(env.model.requests.findLast((r) => r.rule === 'f-done')!)[0];
    expect(shown).toMatch(
      /^Task failed: .*bad key.*\. Continue it with session_id (ses_\w+)\.\n\n<task_metadata>\nsession_id: \1\n<\/task_metadata>$/s,
    );
    const [child] = await env.store.children(sessionId);
    expect(child.status).toBe('failed');
  });

  it('cancelling one child cancels only its subtree; the parent gets an error with the id and continues', async () => {
    env.model.setScript([
      {
        name: 'c-call',
        when: { lastUser: 'Start a slow helper', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Slow', prompt: 'Take your time.', subagent_type: 'general' } },
          ],
        },
      },
      {
        name: 'c-child',
        when: { lastUser: 'Take your time.' },
        reply: { text: 'slow '.repeat(200), chunkDelayMs: 50, chunkSize: 5 },
      },
      {
        name: 'c-done',
        when: { lastUser: 'Start a slow helper', lastRole: 'tool' },
        reply: { text: 'Helper was cancelled.' },
      },
    ]);
    const { sessionId, result } = await env.start('Start a slow helper');
    await env.model.waitForRequest((r) => r.rule === 'c-child', 20_000);
    const [child] = await env.store.children(sessionId);
    await env.client.workflow.getHandle(child.id).cancel();
    expect((await result()).text).toBe('Helper was cancelled.');
    expect(toolOutputs(env.model.requests.findLast((r) => r.rule === 'c-done')!)[0]).toMatch(
      new RegExp(`^Task cancelled\\. Continue it with session_id ${child.id}`),
    );
    expect(await env.store.getSession(child.id)).toMatchObject({ status: 'cancelled' });
    expect(await env.store.getSession(sessionId)).toMatchObject({ status: 'idle' });
  });
});

describe('delegation rules', () => {
  it('gives a subagent of plan none of the tools plan is denied', async () => {
    env.model.setScript([
      {
        name: 'p-call',
        when: { lastUser: 'Plan with help', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Help plan', prompt: 'Help me plan.', subagent_type: 'general' } },
          ],
        },
      },
      { name: 'p-child', when: { lastUser: 'Help me plan.' }, reply: { text: 'helped' } },
      { name: 'p-done', when: { lastUser: 'Plan with help', lastRole: 'tool' }, reply: { text: 'planned' } },
    ]);
    await (await env.start('Plan with help', { agent: 'plan' })).result();
    const child = env.model.requests.findLast((r) => r.rule === 'p-child')!;
    expect(child.toolNames).not.toContain('edit');
    expect(child.toolNames).not.toContain('write');
    expect(child.toolNames).toContain('read');
  });

  it('runs a /command subtask without asking the model, then asks it to summarise', async () => {
    env.model.setScript([
      {
        name: 'cmd-child',
        when: { lastUser: 'Find the test files under src and list them.' },
        reply: { text: 'src/a.test.ts and src/b.test.ts' },
      },
      {
        name: 'cmd-summary',
        when: { lastUser: 'Summarize the task tool output above and continue with your task.' },
        reply: { text: 'There are two tests.' },
      },
    ]);
    const before = env.model.requests.length;
    const { sessionId, result } = await env.start('/find-tests src');
    expect((await result()).text).toBe('There are two tests.');
    expect(env.model.requests.slice(before).map((r) => r.rule)).toEqual(['cmd-child', 'cmd-summary']);
    const summary = env.model.requests.findLast((r) => r.rule === 'cmd-summary')!;
    expect(summary.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    expect(String(summary.messages[1].content[0]?.text ?? summary.messages[1].content)).toContain(
      'The following tool was executed by the user',
    );
    const messages = await env.store.messages(sessionId);
    expect(messages[0].parts[0]).toMatchObject({
      type: 'subtask',
      agent: 'explore',
      command: 'find-tests',
      description: 'Find the tests',
    });
    const [task] = await taskParts(sessionId);
    expect(task.state.status).toBe('completed');
    await env.checkReplay(sessionId, 'command-subtask');
  });

  it('turns an @mention into an agent part and the instruction to delegate', async () => {
    env.model.setScript([
      {
        name: 'm-call',
        when: { lastUser: '@explore where are the tests', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Find tests', prompt: 'Find tests.', subagent_type: 'explore' } },
          ],
        },
      },
      { name: 'm-child', when: { lastUser: 'Find tests.' }, reply: { text: 'in src' } },
      {
        name: 'm-done',
        when: { lastUser: '@explore where are the tests', lastRole: 'tool' },
        reply: { text: 'They are in src.' },
      },
    ]);
    const { sessionId, result } = await env.start('@explore where are the tests');
    expect((await result()).text).toBe('They are in src.');
    const request = env.model.requests.findLast((r) => r.rule === 'm-call')!;
    expect(JSON.stringify(request.messages.at(-1))).toContain(
      'Use the above message and context to generate a prompt and call the task tool with subagent: explore',
    );
    const [user] = await env.store.messages(sessionId);
    expect(user.parts.map((p) => p.type)).toEqual(['text', 'agent', 'text']);
  });
});
