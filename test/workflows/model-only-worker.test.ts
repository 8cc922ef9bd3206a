import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';

let env: LoomTestEnv;

const CURATOR =
  '---\ndescription: Keeps the catalogue\nmode: primary\n---\nYou are the CURATOR-7Q agent of the museum project.';
/** The project's own prompt for the hidden `compaction` agent. */
const ARCHIVIST = 'You are the ARCHIVIST-3K summariser of the museum project.';

/** The project, as each test starts with it: a primary agent, a compaction prompt, a git repository. */
function writeProject(): void {
  const files = {
    '.loom/agent/curator.md': CURATOR,
    '.opencode/agent/compaction.md': ARCHIVIST,
    '.git/HEAD': 'ref: refs/heads/main\n',
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(env.project, path)), { recursive: true });
    writeFileSync(join(env.project, path), text);
  }
}

/**
 * Empties the project folder (config, agents, .git) as its first answer is sent: from then on no
 * worker has a copy of it. From the test, not by the agent's command, whose sandbox keeps Loom's
 * configuration read-only; the model then runs a command there.
 */
function emptyingWorkspace(reply: Record<string, unknown> = {}) {
  return () => {
    for (const entry of readdirSync(env.project)) rmSync(join(env.project, entry), { recursive: true, force: true });
    return { toolCalls: [{ name: 'bash', args: { command: 'ls -A', description: 'List the workspace' } }], ...reply };
  };
}

beforeAll(async () => {
  env = await createLoomTestEnv();
  // Workflows and model calls on a model-only worker; the workspace's activities on host A's worker.
  await env.worker({ serve: 'shared' });
  await env.worker({ serve: 'host', hostId: 'host-a' });
});
afterAll(async () => {
  await env?.close();
});

/** Each scheduled activity of the session's run: its type, its task queue and its input. */
async function scheduled(
  sessionId: string,
): Promise<{ type: string; queue: string; input: Record<string, unknown> }[]> {
  const history = await env.client.workflow.getHandle(sessionId).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const attributes = event.activityTaskScheduledEventAttributes;
    if (!attributes) return [];
    const payload = attributes.input?.payloads?.[0]?.data;
    const input = payload ? (JSON.parse(Buffer.from(payload).toString('utf8')) as Record<string, unknown>) : {};
    return [{ type: attributes.activityType!.name!, queue: attributes.taskQueue!.name!, input }];
  });
}

describe('a model-only worker without the workspace', () => {
  it("configures model calls from the project's config as its host read it, after the project folder was emptied", async () => {
    writeProject();
    env.model.setScript([
      {
        name: 'remove-the-workspace',
        when: { lastUser: 'Catalogue the vase', lastRole: 'user' },
        reply: emptyingWorkspace(),
      },
      { name: 'answer', when: { lastUser: 'Catalogue the vase', lastRole: 'tool' }, reply: { text: 'Catalogued.' } },
    ]);
    const { sessionId, result } = await env.start('Catalogue the vase', { host: 'host-a', agent: 'curator' });
    expect(await result()).toMatchObject({ status: 'completed', text: 'Catalogued.' });
    expect(readdirSync(env.project)).toEqual([]);

    // The second model call ran after the folder was removed, and still had the project's agent.
    const [first, second] = env.model.requests.filter((request) => request.lastUser === 'Catalogue the vase');
    expect(first.rule).toBe('remove-the-workspace');
    expect(second.rule).toBe('answer');
    for (const request of [first, second]) {
      expect(request.system).toContain('You are the CURATOR-7Q agent of the museum project.');
      expect(request.system).toContain('Is directory a git repo: yes');
    }

    // Model calls went to the shared queue with the snapshot's id; the snapshot is in the store.
    const calls = (await scheduled(sessionId)).filter((activity) => activity.type === 'callModel');
    expect(calls).toHaveLength(2);
    const ids = new Set(calls.map((call) => call.input.workspaceConfigId));
    expect(ids.size).toBe(1);
    const [id] = ids as Set<string>;
    expect(id).toMatch(/^wsc_[0-9a-f]{24}$/);
    expect(calls.every((call) => call.queue === env.taskQueue)).toBe(true);
    const snapshot = await env.store.getWorkspaceConfig(id);
    expect(Object.entries(snapshot?.files ?? {}).find(([path]) => path.endsWith('curator.md'))?.[1]).toBe(CURATOR);
    await env.checkReplay(sessionId);
  });

  it("compacts with the project's compaction prompt after the project folder was emptied", async () => {
    writeProject();
    env.model.setScript([
      // A full context (2,600 of the tiny model's 2,500 usable tokens): the next step compacts first.
      {
        name: 'step1',
        when: { lastUser: 'Catalogue the statue', lastRole: 'user' },
        reply: emptyingWorkspace({ usage: { prompt_tokens: 2600, completion_tokens: 10 } }),
      },
      {
        name: 'summary',
        when: { lastUser: /Write a detailed continuation prompt/ },
        reply: { text: '## Goal\nCatalogue the statue.' },
      },
      { name: 'after', when: { lastUser: 'Continue if you have next steps' }, reply: { text: 'Statue catalogued.' } },
    ]);
    const { sessionId, result } = await env.start('Catalogue the statue', {
      host: 'host-a',
      agent: 'curator',
      model: 'scripted/tiny',
    });
    expect((await result()).text).toBe('Statue catalogued.');
    expect(readdirSync(env.project)).toEqual([]);

    const summary = env.model.requests.findLast((request) => request.rule === 'summary')!;
    expect(summary.system).toBe(ARCHIVIST);
    const after = env.model.requests.findLast((request) => request.rule === 'after')!;
    expect(after.system).toContain('You are the CURATOR-7Q agent of the museum project.');
    const compactions = (await scheduled(sessionId)).filter((activity) => activity.type === 'compactSession');
    expect(compactions).toHaveLength(1);
    expect(compactions[0].input.workspaceConfigId).toMatch(/^wsc_/);
    expect(compactions[0].queue).toBe(env.taskQueue);
  });
});
