import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolPart } from '../../core/part.js';
import type { RecordedRequest } from '../support/scripted-model.js';
import { createLoomTestEnv, type LoomTestEnv } from '../support/loom-env.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv({ files: { 'src/a.test.ts': 'test a\n', 'src/b.test.ts': 'test b\n', 'README.md': '# Demo\n' } });
  await env.worker();
});
afterAll(() => env?.close());

const toolOutputs = (request: RecordedRequest) => request.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
const taskParts = async (sessionId: string) =>
  (await env.store.messages(sessionId)).flatMap((m) => m.parts).filter((p): p is ToolPart => p.type === 'tool' && p.tool === 'task');

describe('the task tool', () => {
  it('runs three subagents at once as child workflows and gives the parent their answers with session ids', async () => {
    env.model.setScript([
      {
        name: 'delegate',
        when: { lastUser: 'Survey the project', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Find the tests', prompt: 'List the test files.', subagent_type: 'explore' } },
            { name: 'task', args: { description: 'Read the readme', prompt: 'Summarise README.md.', subagent_type: 'explore' } },
            { name: 'task', args: { description: 'Count files', prompt: 'Count the files.', subagent_type: 'general' } },
          ],
        },
      },
      { name: 'tests', when: { lastUser: 'List the test files.', lastRole: 'user' }, reply: { toolCalls: [{ name: 'glob', args: { pattern: '**/*.test.ts' } }] } },
      { name: 'tests done', when: { lastUser: 'List the test files.', lastRole: 'tool' }, reply: { text: 'Two test files.', delayMs: 800 } },
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
    for await (const run of env.client.workflow.list({ query: `LoomRootSession = '${sessionId}' AND LoomParentSession = '${sessionId}'` })) runs.push(run);
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
