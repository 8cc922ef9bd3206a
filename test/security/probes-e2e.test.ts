// The permission probes of a prompt-injected model, end to end through `loom run`: a read through
// a link out of the project, a fetch of a local service, and `env` in bash. Each gets the verdict
// the rules give it, and the model sees OpenCode's texts for what was denied or rejected.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { correctedMessage } from '../../core/permission.js';
import type { ToolPart } from '../../core/part.js';
import { createLoomTestEnv, type LoomTestEnv } from '../support/loom-env.js';
import { parseJson, runLoom, spawnLoom } from '../support/run-loom.js';
import { waitFor } from '../support/wait.js';

let env: LoomTestEnv;
let service: Server;
let serviceHits = 0;
let serviceUrl: string;

beforeAll(async () => {
  env = await createLoomTestEnv({ config: { permission: { external_directory: 'deny' } } });
  const outside = join(env.project, '..', 'elsewhere');
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), 'outside-secret\n');
  symlinkSync(join(outside, 'secret.txt'), join(env.project, 'link.txt'));
  service = createServer((_request, response) => {
    serviceHits++;
    response.end('local admin page');
  });
  await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
  serviceUrl = `http://127.0.0.1:${(service.address() as { port: number }).port}/admin`;
  await env.worker();
});

afterAll(async () => {
  await new Promise((resolve) => service?.close(resolve));
  await env?.close();
});

describe('probes through loom run', () => {
  it('denies the linked read, asks before the local fetch, and shows bash no secrets', async () => {
    env.model.setScript([
      {
        name: 'probe',
        when: { lastUser: 'Probe', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'read', args: { filePath: 'link.txt' } },
            { name: 'webfetch', args: { url: serviceUrl } },
            { name: 'bash', args: { command: 'env', description: 'Show the environment' } },
          ],
        },
      },
      { name: 'done', when: { lastRole: 'tool' }, reply: { text: 'Probed.' } },
    ]);
    const cliEnv = { ...env.env, NO_COLOR: '1', OPENAI_API_KEY: 'sk-e2e-secret-value', DEPLOY_TOKEN: 'deploy-secret-value' };
    const run = spawnLoom(['run', '--json', '-m', 'scripted/test-model', 'Probe'], { env: cliEnv, cwd: env.project });
    let pending: { id: string; permission: string; patterns: string[] } | undefined;
    await waitFor(() => {
      void env.store.permissionRequests({ status: 'pending' }).then((requests) => (pending = requests[0]));
      return pending !== undefined;
    }, 30_000);
    expect(pending).toMatchObject({ permission: 'webfetch', patterns: [serviceUrl] });
    const reply = await runLoom(['approve', pending!.id, '--reject', '--message', 'no local fetches'], { env: cliEnv });
    expect(reply.code).toBe(0);

    const result = await run.result;
    const { sessionId } = parseJson(result);
    const tools = (await env.store.messages(sessionId)).flatMap((m) => m.parts).filter((part): part is ToolPart => part.type === 'tool');
    const byTool = Object.fromEntries(tools.map((part) => [part.tool, part.state]));
    expect(byTool.read).toMatchObject({ status: 'error', error: expect.stringContaining('The user has specified a rule which prevents you from using this specific tool call') });
    expect(byTool.webfetch).toMatchObject({ status: 'error', error: correctedMessage('no local fetches') });
    expect(serviceHits).toBe(0);
    expect(byTool.bash).toMatchObject({ status: 'completed' });
    const output = (byTool.bash as { output: string }).output;
    expect(output).toContain('PATH=');
    expect(output).not.toContain('sk-e2e-secret-value');
    expect(output).not.toContain('deploy-secret-value');
    expect(JSON.stringify(env.model.requests.at(-1)!.messages)).not.toContain('outside-secret');
  }, 90_000);
});
