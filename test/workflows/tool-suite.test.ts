import { defaultPayloadConverter } from '@temporalio/common';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { pidAlive, processesRunning, waitFor } from '../../testkit/wait.js';
import { toolParts, lastToolOutput } from '../../testkit/model/tool-results.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv({
    files: {
      'math.mjs': 'export function add(a, b) {\n  return a - b;\n}\n',
      'test.mjs':
        "import { add } from './math.mjs';\nif (add(2, 3) !== 5) { console.error('FAIL: add(2, 3) =', add(2, 3)); process.exit(1); }\nconsole.log('ok: add works');\n",
    },
  });
  await env.worker();
});
afterAll(async () => {
  await env?.close();
});

describe('the coding tools in a session', () => {
  it('reads a file, edits it, runs the tests with bash and reads the result', async () => {
    env.model.setScript([
      {
        name: 'read',
        when: { lastUser: 'Fix add', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'read', args: { filePath: 'math.mjs' } }] },
      },
      {
        name: 'edit',
        when: { lastUser: 'Fix add', test: (r) => lastToolOutput(r).includes('return a - b;') },
        reply: {
          toolCalls: [
            { name: 'edit', args: { filePath: 'math.mjs', oldString: 'return a - b;', newString: 'return a + b;' } },
          ],
        },
      },
      {
        name: 'test',
        when: { lastUser: 'Fix add', test: (r) => lastToolOutput(r).startsWith('Edited') },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'node test.mjs', description: 'Run the tests' } }] },
      },
      {
        name: 'answer',
        when: { lastUser: 'Fix add', test: (r) => lastToolOutput(r).includes('ok: add works') },
        reply: { text: 'Fixed: the tests pass.' },
      },
    ]);
    const { sessionId, result } = await env.start('Fix add so that the tests pass');
    expect(await result()).toMatchObject({ text: 'Fixed: the tests pass.', steps: 4 });
    expect(readFileSync(join(env.project, 'math.mjs'), 'utf8')).toContain('return a + b;');

    const parts = await toolParts(env.store, sessionId);
    expect(parts.map((p) => `${p.tool}:${p.state.status}`)).toEqual([
      'read:completed',
      'edit:completed',
      'bash:completed',
    ]);
    const [, edited, ran] = parts;
    expect(edited.state.status === 'completed' && edited.state.metadata.diff).toContain('+  return a + b;');
    expect(ran.state.status === 'completed' && ran.state.metadata).toMatchObject({ exit: 0 });
    const history = await env.client.workflow.getHandle(sessionId).fetchHistory();
    const summaries = (history.events ?? []).flatMap((event) =>
      // `read` runs as a local activity: its summary is on its marker.
      (event.activityTaskScheduledEventAttributes || event.markerRecordedEventAttributes) && event.userMetadata?.summary
        ? [defaultPayloadConverter.fromPayload<string>(event.userMetadata.summary as never)]
        : [],
    );
    // Steps whose tools may change files run between two snapshots; a step that only reads takes none.
    expect(summaries.filter((s) => !s.startsWith('llm'))).toEqual([
      'read · math.mjs',
      'snapshot · before step 2',
      'edit · math.mjs',
      'snapshot · after step 2',
      'snapshot · before step 3',
      'bash · node test.mjs',
      'snapshot · after step 3',
    ]);
    await env.checkReplay(sessionId, 'read-edit-bash');
  });

  it('stops a cancelled bash command and its children within 5 seconds', async () => {
    env.model.setScript([
      {
        name: 'sleep',
        when: { lastUser: 'Wait a long time' },
        reply: {
          toolCalls: [{ name: 'bash', args: { command: 'sleep 611 & touch started; wait', description: 'Sleep' } }],
        },
      },
    ]);
    const { sessionId, result } = await env.start('Wait a long time');
    await waitFor(() => existsSync(join(env.project, 'started')), 20_000);
    // The command runs in the sandbox's own process namespace: its processes are found by what they run.
    const pids = processesRunning('sleep 611');
    expect(pids.length).toBeGreaterThanOrEqual(2);

    await env.client.workflow.getHandle(sessionId).cancel();
    const took = await waitFor(() => !pids.some(pidAlive), 5_000);
    expect(took).toBeLessThan(5_000);
    await expect(result()).rejects.toThrow();
    const [bash] = await toolParts(env.store, sessionId);
    expect(bash.state).toMatchObject({ status: 'error', error: 'Tool execution aborted' });
  });

  it('cuts a huge output, saves it whole, and lets the model read the saved file', async () => {
    env.model.setScript([
      {
        name: 'flood',
        when: { lastUser: 'Count to 100000', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'seq 1 100000', description: 'Count' } }] },
      },
      {
        name: 'read saved',
        when: { lastUser: 'Count to 100000', test: (r) => lastToolOutput(r).includes('The full output is saved in') },
        reply: (r) => ({
          toolCalls: [
            { name: 'read', args: { filePath: /saved in (\S+)/.exec(lastToolOutput(r))![1], offset: 99_998 } },
          ],
        }),
      },
      { name: 'done', when: { lastUser: 'Count to 100000', lastRole: 'tool' }, reply: { text: 'It ends at 100000.' } },
    ]);
    const { sessionId, result } = await env.start('Count to 100000');
    expect((await result()).text).toBe('It ends at 100000.');

    const shown = lastToolOutput(env.model.requests.find((r) => r.rule === 'read saved')!);
    expect(shown.split('\n')[1999]).toBe('2000');
    expect(shown).toMatch(/\.\.\. \d+ lines truncated \.\.\./);
    const [bash, readBack] = await toolParts(env.store, sessionId);
    expect(bash.state.status === 'completed' && bash.state.metadata).toMatchObject({ truncated: true });
    const saved = bash.state.status === 'completed' ? String(bash.state.metadata.outputPath) : '';
    expect(readFileSync(saved, 'utf8').trim().split('\n')).toHaveLength(100_000);
    expect(readBack.state.status === 'completed' && readBack.state.output).toContain('100000');
  });

  it('keeps the todo list with the session, so a resumed run reads it', async () => {
    env.model.setScript([
      {
        name: 'plan',
        when: { lastUser: 'Plan the work', lastRole: 'user' },
        reply: {
          toolCalls: [
            {
              name: 'todowrite',
              args: { todos: [{ content: 'Write tests', status: 'in_progress', priority: 'high' }] },
            },
          ],
        },
      },
      { name: 'planned', when: { lastUser: 'Plan the work', lastRole: 'tool' }, reply: { text: 'Planned.' } },
      {
        name: 'check',
        when: { lastUser: 'What is left?', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'todoread', args: {} }] },
      },
      {
        name: 'left',
        when: { lastUser: 'What is left?', lastRole: 'tool' },
        reply: (r) => ({ text: `Left: ${JSON.parse(lastToolOutput(r))[0].content}` }),
      },
    ]);
    const first = await env.start('Plan the work');
    await first.result();
    const second = await env.start('What is left?', { sessionId: first.sessionId });
    expect((await second.result()).text).toBe('Left: Write tests');
  });
});
