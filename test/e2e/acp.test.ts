import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import {
  client,
  methods,
  ndJsonStream,
  type RequestPermissionRequest,
  type SessionNotification,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import type { RecordedRequest } from '../../testkit/model/scripted-model-script.js';
import type { spawnLoom } from '../../testkit/loom/run-loom.js';
import { stopProcess } from '../../testkit/loom/worker-process.js';
import { waitFor, waitUntil } from '../../testkit/wait.js';

let env: LoomTestEnv;
const processes: ReturnType<typeof spawnLoom>['child'][] = [];

beforeAll(async () => {
  env = await createLoomTestEnv({
    files: {
      'notes.md': 'one\n',
      '.loom/command/review.md': '---\ndescription: Review the changes\n---\nReview $ARGUMENTS\n',
    },
    config: { model: 'scripted/test-model', permission: { bash: 'ask' } },
    // A window Loom knows, so the editor is told how full it is.
    providers: (url) => ({
      scripted: {
        options: { baseURL: url, apiKey: 'test' },
        models: { 'test-model': { limit: { context: 128_000, output: 4_096 } } },
      },
    }),
  });
});
afterAll(async () => {
  await Promise.all(processes.map((child) => stopProcess(child, 'SIGKILL')));
  await env?.close();
});

/** `loom acp` as an editor starts it, and what an editor sees of it. */
function startAcp() {
  const { child } = env.spawnLoom(['acp'], { keepStdinOpen: true });
  processes.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>,
  );
  const updates: SessionNotification[] = [];
  const asked: RequestPermissionRequest[] = [];
  /** The option kind the editor picks; undefined: it never answers. */
  let answer: (request: RequestPermissionRequest) => string | undefined = () => 'allow_once';
  const editor = client({ name: 'test-editor' })
    .onNotification(methods.client.session.update, ({ params }) => void updates.push(params))
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      asked.push(params);
      const kind = answer(params);
      if (kind === undefined) return new Promise<never>(() => undefined);
      return { outcome: { outcome: 'selected', optionId: params.options.find((o) => o.kind === kind)!.optionId } };
    });
  return {
    child,
    stream,
    editor,
    updates,
    asked,
    answerWith: (decide: typeof answer) => (answer = decide),
    of: (sessionId: string): SessionUpdate[] => updates.filter((u) => u.sessionId === sessionId).map((u) => u.update),
    stdoutLines: () => stdout.split('\n').filter(Boolean),
    stderr: () => stderr,
  };
}

const text = (updates: SessionUpdate[], kind: string) =>
  updates
    .filter((u) => u.sessionUpdate === kind)
    .map((u) => (u as { content: { text: string } }).content.text)
    .join('');

/** How many model answers this session's request holds already: the step it is at. */
const step = (request: RecordedRequest) =>
  request.messages.filter((m: { role: string }) => m.role === 'assistant').length;

describe('loom acp, driven by the ACP SDK as an editor', () => {
  it('creates a session, streams a turn (text, thoughts, read, edit diff, plan, subagent), asks permissions, switches mode, cancels', async () => {
    const todos = [
      { content: 'Read the notes', status: 'completed', priority: 'high' },
      { content: 'Change them', status: 'in_progress', priority: 'medium' },
    ];
    env.model.setScript([
      {
        name: 'child',
        when: { lastUser: 'List the files.' },
        reply: (r) =>
          r.lastRole === 'tool'
            ? { text: 'The child saw the files.' }
            : { toolCalls: [{ name: 'bash', args: { command: 'ls', description: 'List' } }] },
      },
      {
        name: 'work',
        when: { lastUser: /Work on the notes/ },
        reply: (r) =>
          [
            {
              reasoning: 'Planning the change.',
              toolCalls: [
                { name: 'todowrite', args: { todos } },
                { name: 'read', args: { filePath: 'notes.md' } },
              ],
            },
            { toolCalls: [{ name: 'edit', args: { filePath: 'notes.md', oldString: 'one', newString: 'two' } }] },
            {
              toolCalls: [
                { name: 'task', args: { description: 'Look', prompt: 'List the files.', subagent_type: 'general' } },
              ],
            },
            // A rejection ends the turn (with no feedback for the model, as in OpenCode).
            {
              text: 'All done with the notes.',
              toolCalls: [{ name: 'bash', args: { command: 'rm notes.md', description: 'Remove' } }],
            },
          ][step(r)],
      },
      { name: 'slow', when: { lastUser: /Think slowly/ }, reply: { text: 'never sent', delayMs: 60_000 } },
    ]);
    const acp = startAcp();
    acp.answerWith((request) => (request.toolCall.title?.includes('rm notes.md') ? 'reject_once' : 'allow_once'));
    await acp.editor.connectWith(acp.stream, async (ctx) => {
      const init = await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      expect(init).toMatchObject({
        protocolVersion: 1,
        agentCapabilities: { loadSession: true, promptCapabilities: { image: false, embeddedContext: true } },
        agentInfo: { name: 'loom' },
      });

      const created = await ctx.request(methods.agent.session.new, { cwd: env.project, mcpServers: [] });
      const { sessionId } = created;
      expect(sessionId).toMatch(/^ses_/);
      expect(created.modes?.currentModeId).toBe('build');
      expect(created.modes?.availableModes.map((m) => m.id)).toEqual(expect.arrayContaining(['build', 'plan']));
      expect(created.modes?.availableModes.map((m) => m.id)).not.toContain('explore');
      await waitFor(() => acp.of(sessionId).some((u) => u.sessionUpdate === 'available_commands_update'), 5_000);
      expect(acp.of(sessionId).find((u) => u.sessionUpdate === 'available_commands_update')).toMatchObject({
        availableCommands: [
          { name: 'init', description: expect.stringContaining('AGENTS.md') },
          { name: 'review', description: 'Review the changes' },
        ],
      });

      const answer = await ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'Work on the notes' }],
      });
      expect(answer).toEqual({ stopReason: 'end_turn' });
      const seen = acp.of(sessionId);
      expect(text(seen, 'agent_message_chunk')).toBe('All done with the notes.');
      expect(text(seen, 'agent_thought_chunk')).toBe('Planning the change.');
      expect(seen.find((u) => u.sessionUpdate === 'plan')).toEqual({
        sessionUpdate: 'plan',
        entries: todos,
      });
      const notes = join(env.project, 'notes.md');
      const calls = (title: string) =>
        seen.filter(
          (u) => (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') && u.title === title,
        ) as (SessionUpdate & { status?: string; content?: unknown[] })[];
      expect(calls('read notes.md')[0]).toMatchObject({
        sessionUpdate: 'tool_call',
        kind: 'read',
        locations: [{ path: notes }],
      });
      const edit = calls('edit notes.md');
      expect(edit[0]).toMatchObject({ sessionUpdate: 'tool_call', kind: 'edit' });
      expect(edit.at(-1)).toMatchObject({ status: 'completed', locations: [{ path: notes }] });
      expect(edit.at(-1)!.content).toContainEqual({ type: 'diff', path: notes, oldText: 'one', newText: 'two' });
      expect(readFileSync(notes, 'utf8')).toBe('two\n');
      // The subagent shows under its task call: its session and its steps.
      const task = calls('task general · Look').at(-1)!;
      expect(task.status).toBe('completed');
      expect(JSON.stringify(task.content)).toMatch(/subagent session ses_\w+\\n✓ bash ls/);
      // Its permission request was asked too (and allowed once), under the task call the editor knows;
      // the rm was rejected and failed.
      expect(acp.asked.map((r) => [r.sessionId, r.toolCall.title])).toEqual([
        [sessionId, 'general subagent: bash · ls'],
        [sessionId, 'bash · rm notes.md'],
      ]);
      expect(acp.asked[0].toolCall.toolCallId).toBe((task as { toolCallId: string }).toolCallId);
      expect(acp.asked[0].options.map((o) => [o.optionId, o.kind])).toEqual([
        ['once', 'allow_once'],
        ['always', 'allow_always'],
        ['reject', 'reject_once'],
      ]);
      expect(calls('bash rm notes.md').at(-1)).toMatchObject({ status: 'failed' });
      // After the turn: the session's title, and how full the model's window is.
      expect(seen.find((u) => u.sessionUpdate === 'session_info_update')).toMatchObject({
        title: (await env.store.getSession(sessionId))!.title,
      });
      const usage = seen.find((u) => u.sessionUpdate === 'usage_update') as { used: number; size: number };
      expect(usage.size).toBe(128_000);
      expect(usage.used).toBeGreaterThan(0);
      expect(readFileSync(notes, 'utf8')).toBe('two\n');
      expect((await env.store.permissionRequests({ rootID: sessionId })).map((r) => r.status).sort()).toEqual([
        'approved',
        'rejected',
      ]);

      await expect(ctx.request(methods.agent.session.setMode, { sessionId, modeId: 'architect' })).rejects.toThrow(
        /unknown mode "architect" for session ses_\w+; its modes are build, plan/,
      );
      await ctx.request(methods.agent.session.setMode, { sessionId, modeId: 'plan' });
      await waitFor(() => acp.of(sessionId).some((u) => u.sessionUpdate === 'current_mode_update'), 5_000);
      expect((await env.store.getSession(sessionId))?.agent).toBe('plan');

      const slow = ctx.request(methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: 'text', text: 'Think slowly' }],
      });
      await waitUntil(async () => (await env.store.getSession(sessionId))?.status === 'busy', 20_000);
      await waitUntil(async () => env.model.requests.some((r) => r.lastUser.includes('Think slowly')), 20_000);
      await ctx.notify(methods.agent.session.cancel, { sessionId });
      expect(await slow).toEqual({ stopReason: 'cancelled' });
      await waitUntil(async () => (await env.store.getSession(sessionId))?.status === 'cancelled', 20_000);
      // The prompt after set_mode ran as the plan agent.
      const last = (await env.store.messages(sessionId)).at(-1)!.info;
      expect(last.agent).toBe('plan');

      await expect(
        ctx.request(methods.agent.session.prompt, { sessionId: 'ses_nosuch', prompt: [{ type: 'text', text: 'hi' }] }),
      ).rejects.toThrow('Unknown session "ses_nosuch"');
    });
    // Everything on stdout was the protocol.
    for (const line of acp.stdoutLines()) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    acp.child.stdin.end();
    await stopProcess(acp.child, 'SIGTERM');
  }, 120_000);

  it('says how each turn stopped: max_tokens at the output limit, refusal for a content filter, an error naming a failed run', async () => {
    env.model.setScript([
      { name: 'cut', when: { lastUser: 'Write at length' }, reply: { text: 'It goes on and', finish: 'length' } },
      {
        name: 'filtered',
        when: { lastUser: 'Say what you must not' },
        reply: { text: 'I cannot say that.', finish: 'content_filter' },
      },
      {
        name: 'denied',
        when: { lastUser: 'Try the key' },
        reply: { status: 401, errorMessage: 'Incorrect API key provided' },
      },
    ]);
    const acp = startAcp();
    await acp.editor.connectWith(acp.stream, async (ctx) => {
      await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const { sessionId } = await ctx.request(methods.agent.session.new, { cwd: env.project, mcpServers: [] });
      const say = (words: string) =>
        ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: words }] });
      expect(await say('Write at length')).toEqual({ stopReason: 'max_tokens' });
      expect(await say('Say what you must not')).toEqual({ stopReason: 'refusal' });
      await expect(say('Try the key')).rejects.toThrow(/Incorrect API key provided/);
    });
    // Its worker must be gone before the next test, whose process must be the one running the turn.
    acp.child.stdin.end();
    await stopProcess(acp.child, 'SIGTERM');
  }, 90_000);

  it('loses nothing when killed mid-prompt: a new loom acp loads the session, the turn finishes, the editor sees the answer', async () => {
    const answer = 'Finished the slow work at last.';
    env.model.setScript([
      {
        name: 'slow',
        times: 1,
        when: { lastUser: 'Take your time' },
        reply: { text: answer, chunkSize: 3, chunkDelayMs: 500 },
      },
      { name: 'again', when: { lastUser: 'Take your time' }, reply: { text: answer } },
    ]);
    const first = startAcp();
    let sessionId = '';
    const gone = first.editor
      .connectWith(first.stream, async (ctx) => {
        await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
        ({ sessionId } = await ctx.request(methods.agent.session.new, { cwd: env.project, mcpServers: [] }));
        await ctx.request(methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: 'text', text: 'Take your time' }],
        });
      })
      .catch(() => 'killed');
    await waitFor(() => sessionId !== '' && text(first.of(sessionId), 'agent_message_chunk').length > 0, 30_000);
    await stopProcess(first.child, 'SIGKILL');
    expect(await gone).toBe('killed');
    expect((await env.store.getSession(sessionId))?.status).toBe('busy');

    const second = startAcp();
    await second.editor.connectWith(second.stream, async (ctx) => {
      await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      const loaded = await ctx.request(methods.agent.session.load, { sessionId, cwd: env.project, mcpServers: [] });
      expect(loaded.modes?.currentModeId).toBe('build');
      expect(text(second.of(sessionId), 'user_message_chunk')).toBe('Take your time');
      // This process's worker takes the run over once the dead one's model call times out; the answer streams in.
      await waitFor(() => text(second.of(sessionId), 'agent_message_chunk').endsWith(answer), 60_000);
      await waitUntil(async () => (await env.store.getSession(sessionId))?.status === 'idle', 10_000);
    });
    expect(env.model.requests.filter((r) => r.rule === 'again')).toHaveLength(1);
    for (const line of second.stdoutLines()) expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
    second.child.stdin.end();
    await stopProcess(second.child, 'SIGTERM');
  }, 120_000);

  it('asks, after a restart, the permission request a killed loom acp left waiting, and streams the rest of the turn', async () => {
    env.model.setScript([
      {
        name: 'deploy',
        when: { lastUser: 'Deploy it' },
        reply: (r) =>
          r.lastRole === 'tool'
            ? { text: 'Deployed.' }
            : { toolCalls: [{ name: 'bash', args: { command: 'echo deployed', description: 'Deploy' } }] },
      },
    ]);
    const first = startAcp();
    let sessionId = '';
    // This editor never answers: it is killed while the question waits.
    first.answerWith(() => undefined);
    const gone = first.editor
      .connectWith(first.stream, async (ctx) => {
        await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
        ({ sessionId } = await ctx.request(methods.agent.session.new, { cwd: env.project, mcpServers: [] }));
        await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: 'Deploy it' }] });
      })
      .catch(() => 'killed');
    await waitUntil(
      async () =>
        sessionId !== '' &&
        first.asked.length > 0 &&
        (await env.store.permissionRequests({ status: 'pending', rootID: sessionId })).length > 0,
      60_000,
    ).catch(async (error: Error) => {
      const session = sessionId ? await env.store.getSession(sessionId) : undefined;
      const asked = env.model.requests.filter((r) => r.rule === 'deploy').length;
      throw new Error(
        `${error.message}; session ${sessionId || '(not created)'} is ${session?.status ?? 'not stored'}, ` +
          `the model was asked ${asked} time(s); loom acp said:\n${first.stderr()}`,
      );
    });
    await stopProcess(first.child, 'SIGKILL');
    await gone;

    const second = startAcp();
    await second.editor.connectWith(second.stream, async (ctx) => {
      await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
      await ctx.request(methods.agent.session.load, { sessionId, cwd: env.project, mcpServers: [] });
      await waitFor(() => text(second.of(sessionId), 'agent_message_chunk') === 'Deployed.', 30_000);
    });
    expect(second.asked.map((r) => [r.sessionId, r.toolCall.title])).toEqual([[sessionId, 'bash · echo deployed']]);
    const bash = second
      .of(sessionId)
      .filter(
        (u) =>
          (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') &&
          u.title === 'bash echo deployed',
      );
    expect(bash.at(-1)).toMatchObject({ status: 'completed' });
    second.child.stdin.end();
    await stopProcess(second.child, 'SIGTERM');
  }, 90_000);
});
