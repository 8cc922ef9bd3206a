// The permission probes of a prompt-injected model, end to end through `loom run`: a read through
// a link out of the project, a fetch of a local service, `env` in bash, commands hidden in
// substitutions, a redirect out of the project and `cat .env`. Each gets the verdict the rules
// give it, nothing happens outside the project, and the model sees OpenCode's texts.
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { correctedMessage } from '../../core/rules/permission.js';
import type { ToolPart } from '../../core/records/part.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { parseJson, runLoom, spawnLoom } from '../../testkit/loom/run-loom.js';
import { waitFor } from '../../testkit/wait.js';

let env: LoomTestEnv;
let service: Server;
let serviceHits = 0;
let serviceUrl: string;

beforeAll(async () => {
  env = await createLoomTestEnv({
    files: { '.env': 'API_TOKEN=project-env-secret\n' },
    config: {
      permission: {
        external_directory: 'deny',
        bash: { '*': 'deny', 'git status*': 'allow', env: 'allow', 'echo *': 'allow', 'cat *': 'allow' },
        read: { '*.env': 'deny' },
      },
    },
  });
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
    const cliEnv = {
      ...env.env,
      OPENAI_API_KEY: 'sk-e2e-secret-value',
      DEPLOY_TOKEN: 'deploy-secret-value',
    };
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
    const tools = (await env.store.messages(sessionId))
      .flatMap((m) => m.parts)
      .filter((part): part is ToolPart => part.type === 'tool');
    const byTool = Object.fromEntries(tools.map((part) => [part.tool, part.state]));
    expect(byTool.read).toMatchObject({
      status: 'error',
      error: expect.stringContaining(
        'The user has specified a rule which prevents you from using this specific tool call',
      ),
    });
    expect(byTool.webfetch).toMatchObject({ status: 'error', error: correctedMessage('no local fetches') });
    expect(serviceHits).toBe(0);
    expect(byTool.bash).toMatchObject({ status: 'completed' });
    const output = (byTool.bash as { output: string }).output;
    expect(output).toContain('PATH=');
    expect(output).not.toContain('sk-e2e-secret-value');
    expect(output).not.toContain('deploy-secret-value');
    expect(JSON.stringify(env.model.requests.at(-1)!.messages)).not.toContain('outside-secret');
  }, 90_000);

  it('denies commands hidden in substitutions, a redirect out of the project and cat .env under "git status*" rules', async () => {
    const outside = join(env.project, '..', 'elsewhere');
    const probes = [
      'git status $(touch ../elsewhere/from-substitution)',
      'git status `touch ../elsewhere/from-backticks`',
      'echo hi > ../elsewhere/from-redirect',
      'cat .env',
    ];
    env.model.setScript([
      {
        name: 'probe',
        when: { lastUser: 'Probe the shell', lastRole: 'user' },
        reply: { toolCalls: probes.map((command) => ({ name: 'bash', args: { command, description: 'Probe' } })) },
      },
      { name: 'done', when: { lastRole: 'tool' }, reply: { text: 'Probed the shell.' } },
    ]);
    const result = await env.loom(['run', '--json', '-m', 'scripted/test-model', 'Probe the shell']);
    expect(parseJson(result)).toMatchObject({ status: 'completed', text: 'Probed the shell.' });
    const tools = (await env.store.messages(parseJson(result).sessionId))
      .flatMap((m) => m.parts)
      .filter((part): part is ToolPart => part.type === 'tool');
    expect(tools).toHaveLength(probes.length);
    for (const part of tools) {
      expect(part.state, (part.state.input as { command: string }).command).toMatchObject({
        status: 'error',
        error: expect.stringContaining(
          'The user has specified a rule which prevents you from using this specific tool call',
        ),
      });
    }
    for (const name of ['from-substitution', 'from-backticks', 'from-redirect'])
      expect(existsSync(join(outside, name)), name).toBe(false);
    expect(JSON.stringify(env.model.requests.at(-1)!.messages)).not.toContain('project-env-secret');
  }, 90_000);
});
