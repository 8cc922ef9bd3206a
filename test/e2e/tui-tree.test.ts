import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { openLoomTui } from '../../testkit/loom/tui.js';
import { startWorkerProcess, stopProcess } from '../../testkit/loom/worker-process.js';
import type { TerminalSession } from '../../testkit/terminal/terminal-session.js';
import { waitUntil } from '../../testkit/wait.js';

// The session tree in the terminal UI: a grandchild's approval answered from the root's screen,
// the leader keys between a session and its subagents, and a worker that dies mid-turn.

let env: LoomTestEnv;
const open: TerminalSession[] = [];

beforeAll(async () => {
  env = await createLoomTestEnv({
    files: { 'README.md': '# Tree\n' },
    config: {
      subagent_depth: 2,
      permission: { bash: { '*': 'ask' } },
      agent: { lead: { mode: 'subagent', description: 'Leads the work', permission: { task: 'allow' } } },
    },
  });
}, 60_000);
afterEach(async () => {
  await Promise.all(open.splice(0).map((terminal) => terminal.close()));
});
afterAll(() => env?.close());

async function tui(args?: string[]): Promise<TerminalSession> {
  const terminal = await openLoomTui(env, args);
  open.push(terminal);
  return terminal;
}

const deepScript = [
  {
    name: 'root',
    when: { lastUser: 'Tidy deeply', lastRole: 'user' as const },
    reply: {
      toolCalls: [
        { name: 'task', args: { description: 'Lead', prompt: 'Delegate the tidying.', subagent_type: 'lead' } },
      ],
    },
  },
  {
    name: 'lead',
    when: { lastUser: 'Delegate the tidying.', lastRole: 'user' as const },
    reply: {
      toolCalls: [
        { name: 'task', args: { description: 'Tidy', prompt: 'Tidy the tmp folder.', subagent_type: 'general' } },
      ],
    },
  },
  {
    name: 'leaf',
    when: { lastUser: 'Tidy the tmp folder.', lastRole: 'user' as const },
    reply: { toolCalls: [{ name: 'bash', args: { command: 'rm -rf tmp', description: 'Remove tmp' } }] },
  },
  {
    name: 'leaf-done',
    when: { lastUser: 'Tidy the tmp folder.', lastRole: 'tool' as const },
    reply: { text: 'Tidied.' },
  },
  {
    name: 'lead-done',
    when: { lastUser: 'Delegate the tidying.', lastRole: 'tool' as const },
    reply: { text: 'Delegated and done.' },
  },
  { name: 'root-done', when: { lastUser: 'Tidy deeply', lastRole: 'tool' as const }, reply: { text: 'All tidy.' } },
];

describe('the terminal UI on a session tree', () => {
  it('shows a grandchild’s approval in the root’s screen, answers it with `a`, and moves through the tree with the leader keys', async () => {
    env.model.setScript(deepScript);
    const terminal = await tui();
    await terminal.waitFor('Ask anything', { timeoutMs: 30_000 });
    await terminal.type('Tidy deeply');
    await terminal.press('Enter');
    const asked = await terminal.waitFor('Permission required', { timeoutMs: 60_000 });
    expect(asked).toContain('bash · rm -rf tmp');
    expect(asked).toMatch(/asked by @general in subagent session ses_\w+/);
    const [request] = await env.store.permissionRequests({ status: 'pending' });
    expect(asked).toContain(request.sessionID);

    await terminal.type('a');
    await terminal.waitFor('All tidy.', { timeoutMs: 60_000 });
    expect((await env.store.getPermissionRequest(request.id))?.reply?.reply).toBe('once');
    const leaf = request.sessionID;
    const lead = (await env.store.getSession(leaf))!.parentID!;

    await terminal.press('C-x', 'Right');
    await terminal.waitFor(/Subagent session @lead/);
    await terminal.waitFor('Delegated and done.');
    await terminal.press('C-x', 'Right');
    await terminal.waitFor(/Subagent session @general/);
    await terminal.waitFor('Tidied.');
    await terminal.press('C-x', 'Up');
    await terminal.waitFor(/Subagent session @lead/);
    await terminal.press('C-x', 'Up');
    await terminal.waitFor('All tidy.');
    expect(await terminal.screen()).not.toContain('Subagent session');

    await terminal.press('C-x', 'Down');
    const listed = await terminal.waitFor('Subagents of this session');
    expect(listed).toContain(lead);
    await terminal.press('Enter');
    await terminal.waitFor(/Subagent session @lead/);
  }, 150_000);

  it('an approval answered elsewhere (`loom approve`) leaves the screen within a second or so', async () => {
    env.model.setScript([
      {
        name: 'ask',
        when: { lastUser: 'Clean up', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'rm -rf build', description: 'Remove build' } }] },
      },
      { name: 'done', when: { lastUser: 'Clean up', lastRole: 'tool' }, reply: { text: 'Cleaned.' } },
    ]);
    const terminal = await tui();
    await terminal.waitFor('Ask anything', { timeoutMs: 30_000 });
    await terminal.type('Clean up');
    await terminal.press('Enter');
    await terminal.waitFor('Permission required', { timeoutMs: 60_000 });
    const [request] = await env.store.permissionRequests({ status: 'pending' });
    const approved = await env.loom(['approve', request.id]);
    expect(approved.code).toBe(0);
    const started = Date.now();
    await terminal.waitFor('Cleaned.', { timeoutMs: 30_000 });
    await waitUntil(async () => !(await terminal.screen()).includes('Permission required'), 5_000);
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 120_000);

  it('cancels the running turn, subagent included, on Esc pressed twice', async () => {
    env.model.setScript([
      {
        name: 'delegate',
        when: { lastUser: 'Delegate something slow', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Slow', prompt: 'Think slowly.', subagent_type: 'general' } },
          ],
        },
      },
      { name: 'slow', when: { lastUser: 'Think slowly.' }, reply: { text: 'never finished', delayMs: 60_000 } },
    ]);
    const terminal = await tui();
    await terminal.waitFor('Ask anything', { timeoutMs: 30_000 });
    await terminal.type('Delegate something slow');
    await terminal.press('Enter');
    await terminal.waitFor('Task @general Slow', { timeoutMs: 30_000 });
    const root = (await env.store.listSessions({ roots: true, limit: 1 }))[0];
    await waitUntil(async () => (await env.store.children(root.id))[0]?.status === 'busy', 30_000);
    const [child] = await env.store.children(root.id);
    await terminal.press('Escape');
    await terminal.waitFor('esc again to interrupt');
    await terminal.press('Escape');
    await terminal.waitFor(`Cancelled ${root.id}`, { timeoutMs: 30_000 });
    await waitUntil(async () => (await env.store.getSession(root.id))?.status === 'cancelled', 30_000);
    await waitUntil(async () => (await env.store.getSession(child.id))?.status !== 'busy', 30_000);
  }, 120_000);

  it('carries on when the worker running the turn is killed: a worker starts in the TUI and the turn finishes', async () => {
    env.model.setScript([
      {
        name: 'slow',
        when: { lastUser: 'Run the slow step', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'read', args: { filePath: 'README.md' } }] },
      },
      {
        name: 'answer',
        when: { lastUser: 'Run the slow step', lastRole: 'tool' },
        reply: { text: 'Finished after the worker came back.', delayMs: 4_000 },
      },
    ]);
    const worker = await startWorkerProcess(env.env, { cwd: env.project });
    try {
      const terminal = await tui();
      await terminal.waitFor('worker: elsewhere', { timeoutMs: 30_000 });
      await terminal.type('Run the slow step');
      await terminal.press('Enter');
      await terminal.waitFor('read README.md', { timeoutMs: 30_000 });
      await stopProcess(worker, 'SIGKILL');
      await terminal.waitFor('Finished after the worker came back.', { timeoutMs: 120_000 });
      await terminal.waitFor('worker: this process', { timeoutMs: 10_000 });
    } finally {
      await stopProcess(worker, 'SIGKILL').catch(() => undefined);
    }
  }, 180_000);
});
