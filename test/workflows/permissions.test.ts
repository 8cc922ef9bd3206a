import { WorkflowUpdateFailedError } from '@temporalio/client';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionReply, PermissionRequestRecord } from '../../core/rules/permission-request.js';
import { WaitingAttribute } from '../../core/runs/search-attributes.js';
import { permissionReplyUpdate } from '../../workflows/api.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { toolParts, lastToolOutput } from '../../testkit/model/tool-results.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv({
    files: { 'notes.md': '# Notes\n', '.env': 'SECRET=1\n' },
    config: {
      permission: { bash: { '*': 'ask', 'echo *': 'allow', 'rm *': 'deny' }, task: 'ask' },
      agent: { brief: { description: 'Answers in two steps at most.', mode: 'primary', steps: 2 } },
    },
  });
  await env.worker();
});
afterAll(() => env?.close());

async function nextPending(sessionId: string, count = 1, except: string[] = []): Promise<PermissionRequestRecord[]> {
  let found: PermissionRequestRecord[] = [];
  for (let i = 0; i < 200 && found.length < count; i++) {
    found = (await env.store.permissionRequests({ status: 'pending' })).filter(
      (r) => r.sessionID === sessionId && !except.includes(r.id),
    );
    if (found.length < count) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect(found.length).toBeGreaterThanOrEqual(count);
  return found;
}

const reply = (sessionId: string, answer: PermissionReply) =>
  env.client.workflow.getHandle(sessionId).executeUpdate(permissionReplyUpdate, { args: [answer] });

describe('permission rules in the loop', () => {
  it('returns the rule to the model when a rule denies a call, and the loop goes on', async () => {
    env.model.setScript([
      {
        name: 'rm',
        when: { lastUser: 'Clean up', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'rm -rf build', description: 'Remove build' } }] },
      },
      { name: 'after', when: { lastUser: 'Clean up', lastRole: 'tool' }, reply: { text: 'I may not remove files.' } },
    ]);
    const { sessionId, result } = await env.start('Clean up');
    expect((await result()).text).toBe('I may not remove files.');
    const shown = lastToolOutput(env.model.requests.findLast((r) => r.rule === 'after')!);
    expect(shown).toContain('The user has specified a rule which prevents you from using this specific tool call');
    expect(shown).toContain('"pattern":"rm *","action":"deny"');
    expect((await toolParts(env.store, sessionId))[0].state.status).toBe('error');
  });

  it('waits for a person on ask, runs the call once on "once", and marks the run as waiting meanwhile', async () => {
    env.model.setScript([
      {
        name: 'ask',
        when: { lastUser: 'Deploy', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'touch deployed.txt', description: 'Deploy' } }] },
      },
      { name: 'done', when: { lastUser: 'Deploy', lastRole: 'tool' }, reply: { text: 'Deployed.' } },
    ]);
    const { sessionId, result } = await env.start('Deploy');
    const [request] = await nextPending(sessionId);
    expect(request).toMatchObject({
      permission: 'bash',
      patterns: ['touch deployed.txt'],
      always: ['touch *'],
      title: 'bash · touch deployed.txt',
      agent: 'build',
    });
    const handle = env.client.workflow.getHandle(sessionId);
    expect((await handle.describe()).typedSearchAttributes.get(WaitingAttribute)).toBe(true);
    expect(existsSync(join(env.project, 'deployed.txt'))).toBe(false);

    await expect(reply(sessionId, { requestId: 'per_unknown', reply: 'once' })).rejects.toBeInstanceOf(
      WorkflowUpdateFailedError,
    );
    await reply(sessionId, { requestId: request.id, reply: 'once' });
    const again = (await reply(sessionId, { requestId: request.id, reply: 'once' }).catch(
      (e: unknown) => e,
    )) as WorkflowUpdateFailedError;
    expect(again.cause?.message).toMatch(
      /No permission request "per_\w+" is waiting in session ses_\w+ \(unknown, or answered already\)/,
    );
    expect((await result()).text).toBe('Deployed.');
    expect(existsSync(join(env.project, 'deployed.txt'))).toBe(true);
    expect(await env.store.getPermissionRequest(request.id)).toMatchObject({
      status: 'approved',
      reply: { reply: 'once' },
    });
    expect((await handle.describe()).typedSearchAttributes.get(WaitingAttribute)).toBe(false);
    await env.checkReplay(sessionId, 'permission-once');
  });

  it('lets the model carry on with feedback, and stops the turn on a plain reject', async () => {
    env.model.setScript([
      {
        name: 'first',
        when: { lastUser: 'Publish', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'npm publish', description: 'Publish' } }] },
      },
      {
        name: 'second',
        times: 1,
        when: { lastUser: 'Publish', test: (r) => lastToolOutput(r).includes('feedback') },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'npm pack', description: 'Pack' } }] },
      },
      { name: 'never', when: { lastUser: 'Publish', lastRole: 'tool' }, reply: { text: 'should not be asked' } },
    ]);
    const { sessionId, result } = await env.start('Publish');
    const [first] = await nextPending(sessionId);
    await reply(sessionId, { requestId: first.id, reply: 'reject', message: 'Only pack it, do not publish' });
    const [second] = await nextPending(sessionId, 1, [first.id]);
    expect(second.patterns).toEqual(['npm pack']);
    await reply(sessionId, { requestId: second.id, reply: 'reject' });
    const outcome = await result();
    expect(outcome.steps).toBe(2);
    expect(env.model.requests.some((r) => r.rule === 'never')).toBe(false);
    const fed = lastToolOutput(env.model.requests.findLast((r) => r.rule === 'second')!);
    expect(fed).toBe(
      'The user rejected permission to use this specific tool call with the following feedback: Only pack it, do not publish',
    );
    const parts = await toolParts(env.store, sessionId);
    expect(parts.map((p) => p.state.status === 'error' && p.state.error)).toEqual([
      fed,
      'The user rejected permission to use this specific tool call.',
    ]);
    await env.checkReplay(sessionId, 'permission-rejected');
  });

  it('"always" allows the same kind of call for the rest of the session, persisted, and approves its waiting twins', async () => {
    env.model.setScript([
      {
        name: 'two at once',
        when: { lastUser: 'Run the checks', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'bash', args: { command: 'git status --short', description: 'Status' } },
            { name: 'bash', args: { command: 'git status', description: 'Status again' } },
          ],
        },
      },
      {
        name: 'later',
        times: 1,
        when: { lastUser: 'Run the checks', lastRole: 'tool' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'git status -b', description: 'Branch' } }] },
      },
      { name: 'done', when: { lastUser: 'Run the checks', lastRole: 'tool' }, reply: { text: 'Checked.' } },
    ]);
    const { sessionId, result } = await env.start('Run the checks');
    const pending = await nextPending(sessionId, 2);
    await reply(sessionId, { requestId: pending[0].id, reply: 'always' });
    expect((await result()).text).toBe('Checked.');
    expect(
      (await env.store.permissionRequests()).filter((r) => r.sessionID === sessionId).map((r) => r.reply?.reply),
    ).toEqual(['always', 'always']);
    expect(await env.store.approvedRules(sessionId)).toEqual([
      { permission: 'bash', pattern: 'git status *', action: 'allow' },
    ]);
    expect((await toolParts(env.store, sessionId)).map((p) => p.state.status)).toEqual([
      'completed',
      'completed',
      'completed',
    ]);
    await env.checkReplay(sessionId, 'permission-always');
  });

  it('asks doom_loop when the same call repeats three times in a row across steps', async () => {
    env.model.setScript([
      {
        name: 'again',
        when: { lastUser: 'Loop', test: (r) => r.messages.filter((m) => m.role === 'tool').length < 3 },
        reply: { toolCalls: [{ name: 'read', args: { filePath: 'notes.md' } }] },
      },
      { name: 'stop', when: { lastUser: 'Loop' }, reply: { text: 'Stopped looping.' } },
    ]);
    const { sessionId, result } = await env.start('Loop');
    const [request] = await nextPending(sessionId);
    expect(request).toMatchObject({ permission: 'doom_loop', patterns: ['read'], always: ['read'] });
    expect((await toolParts(env.store, sessionId)).filter((p) => p.state.status === 'completed')).toHaveLength(2);
    await reply(sessionId, { requestId: request.id, reply: 'once' });
    expect((await result()).text).toBe('Stopped looping.');
  });

  it('asks before reading a .env file', async () => {
    env.model.setScript([
      {
        name: 'env',
        when: { lastUser: 'Show the secrets', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'read', args: { filePath: '.env' } }] },
      },
      {
        name: 'done',
        when: { lastUser: 'Show the secrets', lastRole: 'tool' },
        reply: (r) => ({ text: lastToolOutput(r).includes('SECRET') ? 'leaked' : 'refused' }),
      },
    ]);
    const { sessionId, result } = await env.start('Show the secrets');
    const [request] = await nextPending(sessionId);
    expect(request).toMatchObject({ permission: 'read', patterns: [join(env.project, '.env')] });
    await reply(sessionId, { requestId: request.id, reply: 'reject', message: 'No secrets' });
    expect((await result()).text).toBe('refused');
  });
});

describe('delegation', () => {
  it('asks before a subagent starts, and "always" covers every subagent type', async () => {
    env.model.setScript([
      {
        name: 'd-first',
        times: 1,
        when: { lastUser: 'Delegate twice', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Look', prompt: 'Look around.', subagent_type: 'explore' } },
          ],
        },
      },
      {
        name: 'd-second',
        times: 1,
        when: { lastUser: 'Delegate twice', lastRole: 'tool' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Work', prompt: 'Do the work.', subagent_type: 'general' } },
          ],
        },
      },
      { name: 'd-children', when: { lastUser: /^(Look around|Do the work)\.$/ }, reply: { text: 'done' } },
      { name: 'd-end', when: { lastUser: 'Delegate twice', lastRole: 'tool' }, reply: { text: 'Both done.' } },
    ]);
    const { sessionId, result } = await env.start('Delegate twice');
    const [request] = await nextPending(sessionId);
    expect(request).toMatchObject({ permission: 'task', patterns: ['explore'], always: ['*'] });
    expect(await env.store.children(sessionId)).toHaveLength(0);
    await reply(sessionId, { requestId: request.id, reply: 'always' });
    expect((await result()).text).toBe('Both done.');
    expect(await env.store.children(sessionId)).toHaveLength(2);
    expect((await env.store.permissionRequests()).filter((r) => r.sessionID === sessionId)).toHaveLength(1);
  });

  it('does not ask for the task call of a turn that @mentions the agent', async () => {
    env.model.setScript([
      {
        name: 'at-call',
        when: { lastUser: '@general tidy up', lastRole: 'user' },
        reply: {
          toolCalls: [{ name: 'task', args: { description: 'Tidy', prompt: 'Tidy up.', subagent_type: 'general' } }],
        },
      },
      { name: 'at-child', when: { lastUser: 'Tidy up.' }, reply: { text: 'tidied' } },
      { name: 'at-end', when: { lastUser: '@general tidy up', lastRole: 'tool' }, reply: { text: 'Tidied.' } },
    ]);
    const { sessionId, result } = await env.start('@general tidy up');
    expect((await result()).text).toBe('Tidied.');
    expect((await env.store.permissionRequests()).filter((r) => r.sessionID === sessionId)).toHaveLength(0);
  });
});

describe('agents', () => {
  it('does not offer explore write, edit or the todo list, and a call to one gets the rule error', async () => {
    env.model.setScript([
      {
        name: 'explore',
        when: { lastUser: 'Look around', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'write', args: { filePath: 'x.md', content: 'x' } }] },
      },
      { name: 'done', when: { lastUser: 'Look around', lastRole: 'tool' }, reply: { text: 'Read only.' } },
    ]);
    const { sessionId, result } = await env.start('Look around', { agent: 'explore' });
    expect((await result()).text).toBe('Read only.');
    const offered = env.model.requests.findLast((r) => r.rule === 'explore')!.toolNames.sort();
    // This project's global `task: ask` loosens explore's `*: deny` for task, as OpenCode's merge does.
    expect(offered).toEqual(['bash', 'glob', 'grep', 'list', 'read', 'task', 'webfetch']);
    expect(lastToolOutput(env.model.requests.findLast((r) => r.rule === 'done')!)).toMatch(
      /prevents you from using this specific tool call[\s\S]*"permission":"\*","action":"deny","pattern":"\*"/,
    );
    expect(existsSync(join(env.project, 'x.md'))).toBe(false);
    expect(await env.store.getSession(sessionId)).toMatchObject({ agent: 'explore' });
  });

  it('stops offering tools at the agent step limit and tells the model to answer', async () => {
    env.model.setScript([
      {
        name: 'tool',
        when: { lastUser: 'Count', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'read', args: { filePath: 'notes.md' } }] },
      },
      {
        name: 'last',
        when: { lastUser: 'Count', lastRole: 'user', anyMessage: 'MAXIMUM STEPS REACHED' },
        reply: { text: 'Out of steps.' },
      },
      { name: 'limit', when: { anyMessage: 'MAXIMUM STEPS REACHED' }, reply: { text: 'Out of steps.' } },
    ]);
    const { result } = await env.start('Count', { agent: 'brief' });
    expect(await result()).toMatchObject({ text: 'Out of steps.', steps: 2 });
    const last = env.model.requests.findLast((r) => r.rule === 'limit')!;
    expect(last.toolNames).toEqual([]);
  });

  it('reminds the plan agent that it is read-only', async () => {
    env.model.setScript([{ name: 'plan', when: { lastUser: 'Plan it' }, reply: { text: 'Step 1, step 2.' } }]);
    await (await env.start('Plan it', { agent: 'plan' })).result();
    const request = env.model.requests.findLast((r) => r.rule === 'plan')!;
    expect(JSON.stringify(request.messages.at(-1))).toContain('Plan mode is active');
    expect(request.toolNames).toContain('edit');
  });
});
