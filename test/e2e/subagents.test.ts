import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { parseJson } from '../../testkit/loom/run-loom.js';
import { waitFor } from '../../testkit/wait.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv({
    files: {
      'src/a.test.ts': 'a\n',
      'src/b.test.ts': 'b\n',
      '.loom/command/find-tests.md':
        '---\ndescription: Find the tests\nagent: explore\n---\nFind the test files under $1 and list them.\n',
    },
    config: { permission: { bash: { '*': 'ask' } } },
    // Prices for the scripted model, so the tree has costs to add up.
    providers: (url) => ({
      scripted: {
        options: { baseURL: url, apiKey: 'test' },
        models: { 'test-model': { cost: { input: 3, output: 15 } } },
      },
    }),
  });
});
afterAll(() => env?.close());

interface TreeNode {
  id: string;
  agent: string;
  title: string;
  tokens: { own: { input: number }; tree: { input: number } };
  cost: { own: number; tree: number };
  children: TreeNode[];
}

describe('subagents from the CLI', () => {
  it('runs three subagents at once, shows their steps, and `loom tree` rolls up their tokens', async () => {
    env.model.setScript([
      {
        name: 'delegate',
        when: { lastUser: 'Survey it', lastRole: 'user' },
        reply: {
          toolCalls: [
            {
              name: 'task',
              args: { description: 'Find the tests', prompt: 'List the tests.', subagent_type: 'explore' },
            },
            {
              name: 'task',
              args: { description: 'Find sources', prompt: 'List the sources.', subagent_type: 'explore' },
            },
            {
              name: 'task',
              args: { description: 'Summarise', prompt: 'Summarise the project.', subagent_type: 'general' },
            },
          ],
        },
      },
      {
        name: 'glob',
        when: { lastUser: 'List the tests.', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'glob', args: { pattern: '**/*.test.ts' } }] },
      },
      {
        name: 'children',
        when: { lastUser: /^(List the tests|List the sources|Summarise the project)\.$/ },
        reply: { text: 'child done', delayMs: 500 },
      },
      { name: 'answer', when: { lastUser: 'Survey it', lastRole: 'tool' }, reply: { text: 'Surveyed the project.' } },
    ]);
    const run = await env.loom(['run', '-m', 'scripted/test-model', 'Survey it']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Surveyed the project.');
    expect(run.stderr).toContain('✓ task explore · Find the tests');
    // The live line and `loom show` describe the subagent's call the same way, under its task call.
    expect(run.stderr).toContain('  ↳ ✓ glob **/*.test.ts\n');
    const rootId = /(ses_\w+) · completed/.exec(run.stderr)![1];
    const shown = (await env.loom(['show', rootId])).stdout.split('\n');
    const taskLine = shown.findIndex((line) => line.startsWith('✓ task explore · Find the tests'));
    expect(taskLine).toBeGreaterThan(-1);
    expect(shown[taskLine + 1]).toBe('  ↳ ✓ glob **/*.test.ts');

    const tree = parseJson<TreeNode>(await env.loom(['tree', rootId, '--json']));
    expect(tree.children.map((child) => child.title).sort()).toEqual([
      'Find sources (@explore subagent)',
      'Find the tests (@explore subagent)',
      'Summarise (@general subagent)',
    ]);
    const childInput = tree.children.reduce((sum, child) => sum + child.tokens.tree.input, 0);
    expect(childInput).toBeGreaterThan(0);
    expect(tree.tokens.tree.input).toBe(tree.tokens.own.input + childInput);
    const childCost = tree.children.reduce((sum, child) => sum + child.cost.tree, 0);
    expect(tree.cost.own).toBeGreaterThan(0);
    expect(childCost).toBeGreaterThan(0);
    expect(tree.cost.tree).toBeCloseTo(tree.cost.own + childCost, 10);
    const text = await env.loom(['tree', rootId]);
    expect(text.stdout).toMatch(/├─ explore Find/);
    expect(text.stdout).toMatch(/└─ /);
    expect(text.stdout).toMatch(/tokens \(tree [\d,]+\) · \$[\d.]+ \(tree \$[\d.]+\)/);
    expect((await env.loom(['show', rootId])).stdout).toMatch(
      /tokens · \$[\d.]+ · [\d,]+ tokens, \$[\d.]+ with 3 subagent session/,
    );

    const child = tree.children.find((c) => c.title.startsWith('Find the tests'))!;
    const description = await env.client.workflow.getHandle(child.id).describe();
    expect(await description.staticSummary()).toBe('explore · Find the tests');
    expect(await description.staticDetails()).toContain('List the tests.');
    expect(description.raw.workflowExecutionInfo?.parentExecution?.workflowId).toBe(rootId);
  });

  it('runs /command as a subtask, with no model decision first', async () => {
    env.model.setScript([
      {
        name: 'cmd-child',
        when: { lastUser: 'Find the test files under src and list them.' },
        reply: { text: 'Two tests.' },
      },
      {
        name: 'cmd-summary',
        when: { lastUser: 'Summarize the task tool output above and continue with your task.' },
        reply: { text: 'There are two.' },
      },
    ]);
    const result = parseJson(await env.loom(['run', '--json', '-m', 'scripted/test-model', '/find-tests src']));
    expect(result).toMatchObject({ status: 'completed', text: 'There are two.' });
  });

  it('brings a subagent’s permission request to the root’s terminal', async () => {
    env.model.setScript([
      {
        name: 'p-root',
        when: { lastUser: 'Run the build in a helper', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Build', prompt: 'Run the build.', subagent_type: 'general' } },
          ],
        },
      },
      {
        name: 'p-child',
        when: { lastUser: 'Run the build.', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'echo built', description: 'Build' } }] },
      },
      { name: 'p-child-done', when: { lastUser: 'Run the build.', lastRole: 'tool' }, reply: { text: 'built' } },
      {
        name: 'p-done',
        when: { lastUser: 'Run the build in a helper', lastRole: 'tool' },
        reply: { text: 'The helper built it.' },
      },
    ]);
    const run = env.spawnLoom(['run', '--json', '-m', 'scripted/test-model', 'Run the build in a helper']);
    let stderr = '';
    run.child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await waitFor(() => /loom approve (per_\w+)/.test(stderr), 30_000);
    expect(stderr).toContain('(general)');
    const requestId = /loom approve (per_\w+)/.exec(stderr)![1];
    const [request] = parseJson(await env.loom(['pending', '--json']));
    expect(request.sessionID).not.toBe(request.rootID);
    const pending = (await env.loom(['pending'])).stdout;
    expect(pending).toContain(
      `in session ${request.sessionID} (general), subagent of ${request.rootID} · request ${requestId}`,
    );
    expect(pending).toContain(`loom approve ${requestId} (or --always)`);
    expect(pending).toContain(`loom approve ${requestId} --reject`);
    expect((await env.loom(['approve', requestId])).code).toBe(0);
    expect(parseJson(await run.result)).toMatchObject({ status: 'completed', text: 'The helper built it.' });
  }, 60_000);
});
