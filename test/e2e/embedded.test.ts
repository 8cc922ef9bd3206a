import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isListening } from '../../client/temporal/dev-server.js';
import { freePort } from '../../testkit/free-port.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom-env.js';
import { parseJson, runLoom } from '../../testkit/run-loom.js';

let env: LoomTestEnv;
let embeddedEnv: NodeJS.ProcessEnv;
let address: string;

beforeAll(async () => {
  env = await createLoomTestEnv({ files: { 'README.md': '# Embedded\n' } });
  const [port, uiPort] = [await freePort(), await freePort()];
  address = `127.0.0.1:${port}`;
  const { TEMPORAL_ADDRESS: _unused, ...rest } = env.env;
  embeddedEnv = { ...rest, LOOM_TEMPORAL_PORT: String(port), LOOM_TEMPORAL_UI_PORT: String(uiPort), NO_COLOR: '1' };
});
afterAll(async () => {
  if (embeddedEnv) await runLoom(['down'], { env: embeddedEnv });
  await env?.close();
});

describe('embedded mode (no TEMPORAL_ADDRESS)', () => {
  it('starts the dev server in the background and a worker in-process, and `loom down` stops the server', async () => {
    env.model.setScript([{ when: { lastRole: 'user' }, reply: { text: 'Hello from the embedded setup.' } }]);
    expect(await isListening(address)).toBe(false);

    const first = await runLoom(['run', '--json', '-m', 'scripted/test-model', 'Say hello'], {
      env: embeddedEnv,
      cwd: env.project,
    });
    expect(parseJson(first)).toMatchObject({ status: 'completed', text: 'Hello from the embedded setup.' });
    expect(first.stderr).toContain(`Starting the Temporal dev server at ${address}`);
    expect(first.stderr).toMatch(/UI http:\/\/\S+:\d+/);
    expect(await isListening(address)).toBe(true);

    const second = await runLoom(['run', '--json', '-m', 'scripted/test-model', 'Say hello again'], {
      env: embeddedEnv,
      cwd: env.project,
    });
    expect(parseJson(second)).toMatchObject({ status: 'completed' });
    expect(second.stderr).not.toContain('Starting the Temporal dev server');

    const down = await runLoom(['down'], { env: embeddedEnv });
    expect(down.code).toBe(0);
    expect(await isListening(address)).toBe(false);
  });
});
