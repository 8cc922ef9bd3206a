import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolPart } from '../../core/records/part.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';

const SECRETS = {
  OPENAI_API_KEY: 'sk-test-secret',
  MY_SERVICE_TOKEN: 'svc-token-secret',
  LLM_CREDENTIAL: 'cred-0123456789abcdef',
};

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv({
    files: {
      'loom.json': JSON.stringify({
        // A provider whose key the config reads from a variable with an innocent name.
        provider: { extra: { options: { baseURL: 'http://127.0.0.1:1/v1', apiKey: '{env:LLM_CREDENTIAL}' } } },
        shell_env: { GREETING: 'hello from shell_env' },
      }),
    },
  });
  // The worker's activities get this environment: it holds the secrets a real worker would.
  Object.assign(env.env, SECRETS);
  await env.worker();
});
afterAll(async () => {
  await env?.close();
});

describe('the environment of a bash call in a session', () => {
  it('holds no credentials of the worker, in the store or in what the model is shown', async () => {
    env.model.setScript([
      {
        name: 'env',
        when: { lastUser: 'Show the environment', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'env', description: 'Show the environment' } }] },
      },
      { name: 'done', when: { lastUser: 'Show the environment', lastRole: 'tool' }, reply: { text: 'Shown.' } },
    ]);
    const { sessionId, result } = await env.start('Show the environment');
    expect((await result()).text).toBe('Shown.');

    const [bash] = (await env.store.messages(sessionId))
      .flatMap((m) => m.parts)
      .filter((p): p is ToolPart => p.type === 'tool');
    expect(bash.state.status).toBe('completed');
    const output = bash.state.status === 'completed' ? bash.state.output : '';
    expect(output.split('\n')).toEqual(
      expect.arrayContaining([`PATH=${env.env.PATH}`, 'GREETING=hello from shell_env']),
    );
    const shown = JSON.stringify(env.model.requests.find((r) => r.rule === 'done')!.messages);
    for (const secret of Object.values(SECRETS)) {
      expect(output).not.toContain(secret);
      expect(shown).not.toContain(secret);
    }
  });
});
