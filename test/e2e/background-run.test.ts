// `loom run` that starts background subagents: with the worker in its own process, the command is
// all they have, so it waits for them and for the answer their reports wake; Ctrl-C or --detach
// leaves them, saying a worker is needed. And `loom resume <id>` with no prompt runs a failed prompt again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptRule } from '../../testkit/model/scripted-model-script.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { waitFor, waitUntil } from '../../testkit/wait.js';

let env: LoomTestEnv;

beforeAll(async () => {
  // Titles on, to see a session whose first run failed get one when it runs.
  env = await createLoomTestEnv({ config: { auto_title: true } });
});
afterAll(() => env?.close());

const loom = (args: string[], extra: NodeJS.ProcessEnv = {}) => env.loom(args, { env: extra });

const TITLE: ScriptRule = {
  name: 'title',
  when: { lastUser: /^Generate a title for this conversation/ },
  reply: { text: 'Searching the notes' },
};

/** A root that starts one background `explore` subagent, which answers after `delayMs`; its report wakes the root. */
function backgroundScript(tag: string, delayMs: number): ScriptRule[] {
  return [
    TITLE,
    {
      name: `${tag}-start`,
      when: { lastUser: `${tag}: search in the background`, lastRole: 'user' },
      reply: {
        toolCalls: [
          {
            name: 'task',
            args: {
              description: 'Find notes',
              prompt: `${tag}: find the notes.`,
              subagent_type: 'explore',
              background: true,
            },
          },
        ],
      },
    },
    {
      name: `${tag}-child`,
      when: { lastUser: `${tag}: find the notes.` },
      reply: { text: 'Found three notes.', delayMs },
    },
    {
      name: `${tag}-started`,
      when: { lastUser: `${tag}: search in the background`, lastRole: 'tool' },
      reply: { text: 'Started the search.' },
    },
    {
      name: `${tag}-woken`,
      when: { lastUser: /^The background subagent "Find notes/, anyMessage: `${tag}: search` },
      reply: { text: 'The search found three notes.' },
    },
  ];
}

async function childOf(rootId: string) {
  await waitUntil(async () => (await env.store.children(rootId)).length > 0, 10_000);
  return (await env.store.children(rootId))[0];
}

describe('loom run with background subagents, running the worker itself', () => {
  it('waits for them, says how each ended and prints the wake-up answer, then exits', async () => {
    env.model.setScript(backgroundScript('wait', 2_000));
    const result = await loom(['run', '-m', 'scripted/test-model', 'wait: search in the background']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('⋯ 1 background subagent still running: waiting for them (Ctrl-C leaves them)');
    const rootId = /(ses_\w+) · completed/.exec(result.stderr)![1];
    const child = await childOf(rootId);
    expect(result.stderr).toContain(`✓ ${child.id} (background subagent 'explore') finished: Found three notes.`);
    const started = result.stdout.indexOf('Started the search.');
    expect(started).toBeGreaterThanOrEqual(0);
    expect(result.stdout.indexOf('The search found three notes.')).toBeGreaterThan(started);
    // The first run's last line and the wake-up run's.
    expect(result.stderr.match(new RegExp(`● ${rootId} · completed`, 'g'))).toHaveLength(2);
    expect((await env.store.getSession(child.id))?.status).toBe('idle');
    expect((await env.store.getSession(rootId))?.status).toBe('idle');
    expect(env.model.requests.filter((r) => r.rule === 'wait-woken')).toHaveLength(1);
  }, 90_000);

  it('leaves them on Ctrl-C, saying that no worker will run them', async () => {
    env.model.setScript(backgroundScript('interrupt', 60_000));
    const run = env.spawnLoom(['run', '-m', 'scripted/test-model', 'interrupt: search in the background']);
    let stderr = '';
    run.child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await waitFor(() => stderr.includes('waiting for them (Ctrl-C leaves them)'), 60_000);
    run.child.kill('SIGINT');
    const result = await run.result;
    expect(result.code).toBe(0);
    const rootId = /(ses_\w+) · completed/.exec(result.stderr)![1];
    const child = await childOf(rootId);
    expect(result.stderr).toContain(
      `Left ${child.id} running (background subagent 'explore'): no worker will run it after this command; start \`loom worker\``,
    );
    expect((await env.store.getSession(child.id))?.status).toBe('busy');
    // `loom cancel` of the root runs a worker until its subagent is cancelled too.
    expect((await loom(['cancel', rootId])).code).toBe(0);
    await waitUntil(async () => (await env.store.getSession(child.id))?.status === 'cancelled', 30_000);
  }, 120_000);
});

describe('a run left on SIGTERM', () => {
  it('says that no worker will run it once the command, which was running the worker, stops', async () => {
    env.model.setScript([
      TITLE,
      { name: 'slow', reply: { text: 'tick '.repeat(300), chunkDelayMs: 50, chunkSize: 5 } },
    ]);
    const run = env.spawnLoom(['run', '-m', 'scripted/test-model', 'Keep ticking']);
    await env.model.waitForRequest((r) => r.rule === 'slow' && r.lastUser === 'Keep ticking', 60_000);
    run.child.kill('SIGTERM');
    const result = await run.result;
    expect(result.code).toBe(130);
    const sessionId = /Left (ses_\w+) running/.exec(result.stderr)![1];
    expect(result.stderr).toContain(
      `Left ${sessionId} running: no worker will run it after this command; start \`loom worker\` (\`loom show ${sessionId}\` shows its progress).`,
    );
    expect((await loom(['cancel', sessionId])).code).toBe(0);
  }, 90_000);
});

describe('loom resume with no prompt', () => {
  it('runs again the prompt of a run that never reached its model, and the session gets its title', async () => {
    env.model.setScript([
      TITLE,
      { name: 'hello', when: { lastUser: 'Say hello to the notes' }, reply: { text: 'Hello, notes.' } },
    ]);
    // Slow retries, so the command looks in on the run between attempts.
    const failed = await loom(['run', '-m', 'dead/test-model', 'Say hello to the notes'], {
      LOOM_MODEL_RETRY_INITIAL_MS: '2500',
    });
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/↻ callModel attempt 2\/3 after: Cannot reach dead\/test-model/);
    expect(failed.stderr).not.toMatch(/callModel attempt \d\/8/);
    expect(failed.stderr).toMatch(
      /Gave up after 3 attempts: .* Fix it, then `loom resume ses_\w+` runs the prompt again\./,
    );
    const sessionId = /`loom resume (ses_\w+)`/.exec(failed.stderr)![1];
    expect((await env.store.getSession(sessionId))?.title).toMatch(/^New session - /);

    // The fix here: a model that answers.
    const resumed = await loom(['resume', sessionId, '-m', 'scripted/test-model']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`Running the prompt of ${sessionId}'s failed run again: "Say hello to the notes"`);
    expect(resumed.stdout).toContain('Hello, notes.');
    const messages = await env.store.messages(sessionId);
    const prompts = messages.filter((m) => m.info.role === 'user');
    expect(prompts).toHaveLength(1);
    expect(messages.some((m) => m.info.role === 'assistant' && m.info.error)).toBe(false);
    expect((await env.store.getSession(sessionId))?.title).toBe('Searching the notes');

    // Nothing left to run again: said, with what to do.
    const again = await loom(['resume', sessionId]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(
      `No prompt given, and session ${sessionId} has none to run again (its last prompt has its answer). Pass one: \`loom resume ${sessionId} "…"\``,
    );
  }, 120_000);
});

// Last: the worker started here stays for the rest of the file.
describe('loom run --detach, and with a worker elsewhere', () => {
  it('--detach leaves the subagents, saying they need `loom worker`, which then finishes them', async () => {
    env.model.setScript(backgroundScript('detach', 1_500));
    const result = await loom(['run', '--detach', '-m', 'scripted/test-model', 'detach: search in the background']);
    expect(result.code, result.stderr).toBe(0);
    const rootId = /(ses_\w+) · completed/.exec(result.stderr)![1];
    const child = await childOf(rootId);
    expect(result.stderr).toContain(
      `Left ${child.id} running (background subagent 'explore'): no worker will run it after this command; start \`loom worker\``,
    );
    expect(result.stderr).not.toContain('waiting for them');
    expect(env.model.requests.some((r) => r.rule === 'detach-woken')).toBe(false);

    await env.worker();
    await waitFor(() => env.model.requests.some((r) => r.rule === 'detach-woken'), 30_000);
  }, 90_000);

  it('says the subagents go on in the worker serving the task queue, and exits', async () => {
    env.model.setScript(backgroundScript('elsewhere', 1_500));
    const result = await loom(['run', '-m', 'scripted/test-model', 'elsewhere: search in the background']);
    expect(result.code, result.stderr).toBe(0);
    const rootId = /(ses_\w+) · completed/.exec(result.stderr)![1];
    const child = await childOf(rootId);
    expect(result.stderr).toContain(
      `⋯ Still running in the worker serving task queue "${env.taskQueue}": ${child.id} (background subagent 'explore').`,
    );
    await waitFor(() => env.model.requests.some((r) => r.rule === 'elsewhere-woken'), 30_000);
  }, 90_000);
});
