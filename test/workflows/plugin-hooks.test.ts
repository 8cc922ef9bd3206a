import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionRequestRecord } from '../../core/rules/permission-request.js';
import { permissionReplyUpdate } from '../../workflows/api.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { toolParts, lastToolOutput } from '../../testkit/model/tool-results.js';

let env: LoomTestEnv;
let eventLog: string;
/** A project folder without plugins, under the same rules. */
let plain: string;

/**
 * The project's plugin: allows `touch allowed*`, denies `touch denied*`, leaves the rest to a
 * person; and writes every event it gets as `type session` lines.
 */
const policy = (log: string) => `
import { appendFileSync } from 'node:fs';
export default async () => ({
  'permission.ask': async (input, output) => {
    if (input.type !== 'bash') return;
    if (input.patterns.every((p) => p.startsWith('touch allowed'))) output.status = 'allow';
    if (input.patterns.some((p) => p.startsWith('touch denied'))) output.status = 'deny';
  },
  event: async ({ event }) => {
    const p = event.properties;
    const session = p.info?.sessionID ?? p.info?.id ?? p.part?.sessionID ?? p.request?.sessionID ?? p.sessionID;
    appendFileSync(${JSON.stringify(log)}, event.type + ' ' + session + '\\n');
  },
});
`;

beforeAll(async () => {
  env = await createLoomTestEnv({ config: { permission: { bash: { '*': 'ask', 'echo *': 'allow' } } } });
  eventLog = join(env.dataDir, '..', 'events.log');
  const file = join(env.project, '.loom', 'plugins', 'policy.js');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, policy(eventLog));
  plain = join(env.project, '..', 'plain');
  mkdirSync(plain);
  await env.worker();
});
afterAll(() => env?.close());

const requestsOf = async (sessionId: string) =>
  (await env.store.permissionRequests()).filter((r) => r.sessionID === sessionId);

async function nextPending(sessionId: string): Promise<PermissionRequestRecord> {
  for (let i = 0; i < 200; i++) {
    const [found] = (await requestsOf(sessionId)).filter((r) => r.status === 'pending');
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no pending permission request in ${sessionId}`);
}

/** The model calls bash with `command` once, then says what the tool answered. */
function scriptBash(prompt: string, command: string) {
  env.model.setScript([
    {
      name: `${prompt}-call`,
      when: { lastUser: prompt, lastRole: 'user' },
      reply: { toolCalls: [{ name: 'bash', args: { command, description: prompt } }] },
    },
    { name: `${prompt}-done`, when: { lastUser: prompt, lastRole: 'tool' }, reply: { text: `${prompt}: done` } },
  ]);
}

describe('permission.ask', () => {
  it('runs a call a plugin allows without asking anyone, and records the request as answered', async () => {
    scriptBash('Allowed', 'touch allowed.txt');
    const { sessionId, result } = await env.start('Allowed');
    expect((await result()).text).toBe('Allowed: done');
    expect(existsSync(join(env.project, 'allowed.txt'))).toBe(true);
    const requests = await requestsOf(sessionId);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      status: 'approved',
      patterns: ['touch allowed.txt'],
      reply: { reply: 'once', message: 'Allowed by plugin .loom/plugins/policy.js (permission.ask)' },
    });
    expect((await toolParts(env.store, sessionId))[0].state.status).toBe('completed');
    await env.checkReplay(sessionId, 'plugin-permission-allow');
  });

  it('fails a call a plugin denies with an error the model sees naming the plugin', async () => {
    scriptBash('Denied', 'touch denied.txt');
    const { sessionId, result } = await env.start('Denied');
    expect((await result()).text).toBe('Denied: done');
    expect(existsSync(join(env.project, 'denied.txt'))).toBe(false);
    const shown = lastToolOutput(env.model.requests.findLast((r) => r.rule === 'Denied-done')!);
    expect(shown).toBe(
      'The plugin .loom/plugins/policy.js denied permission to use this specific tool call (bash: touch denied.txt).',
    );
    expect(await requestsOf(sessionId)).toMatchObject([{ status: 'rejected', reply: { reply: 'reject' } }]);
    expect((await toolParts(env.store, sessionId))[0].state).toMatchObject({ status: 'error', error: shown });
    await env.checkReplay(sessionId, 'plugin-permission-deny');
  });

  it('asks a person when the plugin says nothing, and when the project has no plugins', async () => {
    for (const [prompt, directory, file] of [
      ['Undecided', env.project, 'other.txt'],
      ['Plain', plain, 'allowed-plain.txt'],
    ] as const) {
      scriptBash(prompt, `touch ${file}`);
      const { sessionId, result } = await env.start(prompt, { directory });
      const request = await nextPending(sessionId);
      expect(existsSync(join(directory, file))).toBe(false);
      await env.client.workflow
        .getHandle(sessionId)
        .executeUpdate(permissionReplyUpdate, { args: [{ requestId: request.id, reply: 'once' }] });
      expect((await result()).text).toBe(`${prompt}: done`);
      expect(existsSync(join(directory, file))).toBe(true);
      expect(await env.store.getPermissionRequest(request.id)).toMatchObject({
        status: 'approved',
        reply: { reply: 'once' },
      });
    }
  });
});

describe('event', () => {
  it('gets the store’s events of the project’s sessions, as the server streams them', async () => {
    scriptBash('Watched', 'echo watched');
    const { sessionId, result } = await env.start('Watched');
    await result();
    const expected = ['session.updated', 'message.updated', 'message.part.updated'];
    let types: string[] = [];
    for (let i = 0; i < 100; i++) {
      const lines = existsSync(eventLog) ? readFileSync(eventLog, 'utf8').trim().split('\n') : [];
      types = lines.filter((line) => line.endsWith(` ${sessionId}`)).map((line) => line.split(' ')[0]);
      if (expected.every((type) => types.includes(type)) && types.at(-1) === 'session.updated') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(new Set(types)).toEqual(new Set(expected));
    const all = readFileSync(eventLog, 'utf8');
    // The earlier runs' requests: answered by the plugin, and asked of a person.
    expect(all).toContain('permission.replied');
    expect(all).toContain('permission.asked');
    // Sessions of the folder without plugins are not this plugin's.
    const plainSessions = (await env.store.listSessions()).filter((s) => s.directory === plain).map((s) => s.id);
    expect(plainSessions.length).toBeGreaterThan(0);
    for (const id of plainSessions) expect(all).not.toContain(id);
  });
});
