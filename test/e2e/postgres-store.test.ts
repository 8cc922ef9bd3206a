import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresSessionStore } from '../../activities/store/postgres/store.js';
import { freePort } from '../../testkit/network/free-port.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { startTestPostgres, type TestPostgres } from '../../testkit/store/postgres-server.js';
import { parseJson } from '../../testkit/loom/run-loom.js';

let env: LoomTestEnv;
let server: TestPostgres;
let storeUrl: string;

beforeAll(async () => {
  server = await startTestPostgres();
  storeUrl = await server.createDatabase();
  env = await createLoomTestEnv({ files: { 'README.md': '# Demo\nhello from the readme\n' } });
});
afterAll(async () => {
  await env?.close();
  await server?.stop();
});

/** `loom` on the test's PostgreSQL database, unless `extraEnv` names another store. */
const loom = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
  env.loom(args, { env: { LOOM_STORE_URL: storeUrl, ...extraEnv } });

describe('LOOM_STORE_URL', () => {
  it('runs a session with its worker and CLI on PostgreSQL, and nothing in the SQLite file', async () => {
    env.model.setScript([
      {
        name: 'read',
        when: { lastUser: 'What does the readme say?', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'read', args: { filePath: 'README.md' } }] },
      },
      {
        name: 'answer',
        when: { lastUser: 'What does the readme say?', lastRole: 'tool' },
        reply: { text: 'It says hello.' },
      },
    ]);
    const result = await loom(['run', '--json', '--model', 'scripted/test-model', 'What does the readme say?']);
    expect(result.code).toBe(0);
    const { sessionId, text } = parseJson(result);
    expect(text).toBe('It says hello.');

    const store = await PostgresSessionStore.open(storeUrl);
    try {
      const parts = (await store.messages(sessionId)).flatMap((m) =>
        m.parts.map((p) => (p.type === 'tool' ? `${p.tool}:${p.state.status}` : p.type)),
      );
      expect(parts).toEqual(['text', 'read:completed', 'text']);
    } finally {
      await store.close();
    }
    expect(parseJson(await loom(['ls', '--json'])).map((s: { id: string }) => s.id)).toEqual([sessionId]);
    expect(await env.store.getSession(sessionId)).toBeUndefined();
  });

  it('names the host and database of an unreachable server, without a stack trace or the password', async () => {
    const port = await freePort();
    const result = await loom(['ls'], { LOOM_STORE_URL: `postgres://loom:pa55-w0rd@127.0.0.1:${port}/loomdb` });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `Cannot open the session store: PostgreSQL database "loomdb" on host 127.0.0.1:${port} (LOOM_STORE_URL)`,
    );
    expect(result.stderr).not.toContain('pa55-w0rd');
    expect(result.stderr).not.toMatch(/^\s+at /m);
  });

  it('refuses a URL of another kind, without printing it', async () => {
    const result = await loom(['ls'], { LOOM_STORE_URL: 'mysql://loom:pa55-w0rd@db/loom' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'LOOM_STORE_URL must start with postgres:// or postgresql:// (it starts with "mysql…")',
    );
    expect(result.stderr).not.toContain('pa55-w0rd');
  });
});
