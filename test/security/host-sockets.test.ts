// The Unix sockets of the host, probed through `loom run` with the default rules: a service listening
// on a socket in the home folder or in the workspace (a path the sandbox can see, unlike /run and
// /tmp), and one on an abstract address, are out of reach of a sandboxed command, and the model is
// told why; the sandbox's own sockets (a server and a client inside it, a socketpair) keep working.
// Folders are made in /var/tmp: the sandbox's /tmp is private, which would hide a socket anyway.
import { mkdirSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolPart } from '../../core/records/part.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { parseJson, runLoom } from '../../testkit/loom/run-loom.js';

const PYTHON = '/usr/bin/python3';
const ABSTRACT = `\0loom-probe-${process.pid}`;

let env: LoomTestEnv;
let home: string;
let cliEnv: NodeJS.ProcessEnv;
const servers: Server[] = [];
/** Connections each host service took, by its address. */
const hits = new Map<string, number>();

/** A host service on a Unix socket, as a docker daemon, an ssh agent or an editor's IPC would run. */
async function listen(address: string): Promise<void> {
  hits.set(address, 0);
  const server = createServer((socket) => {
    hits.set(address, hits.get(address)! + 1);
    socket.end('host service\n');
  });
  await new Promise<void>((resolve) => server.listen(address, resolve));
  servers.push(server);
}

/** What a connection from the worker itself gets: the services answer outside the sandbox. */
function reply(address: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    connect(address)
      .on('data', (chunk) => (text += chunk.toString()))
      .on('end', () => resolve(text))
      .on('error', reject);
  });
}

beforeAll(async () => {
  env = await createLoomTestEnv({ parent: '/var/tmp' });
  home = join(env.project, '..', 'home');
  mkdirSync(join(home, '.docker', 'desktop'), { recursive: true });
  await listen(join(home, '.docker', 'desktop', 'docker.sock'));
  await listen(join(env.project, 'dev.sock'));
  await listen(ABSTRACT);
  cliEnv = { ...env.env, HOME: home };
  await env.worker({ env: cliEnv });
});

afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await env?.close();
});

async function bashParts(sessionId: string): Promise<ToolPart[]> {
  return (await env.store.messages(sessionId))
    .flatMap((message) => message.parts)
    .filter((part): part is ToolPart => part.type === 'tool');
}

const outputOf = (part: ToolPart) => (part.state as { output?: string }).output ?? '';

describe("the host's Unix sockets through loom run, default rules", () => {
  it('refuses a connection to a socket the host listens on, and lets the sandbox use its own', async () => {
    const docker = join(home, '.docker', 'desktop', 'docker.sock');
    const dev = join(env.project, 'dev.sock');
    for (const address of [docker, dev, ABSTRACT]) expect(await reply(address)).toBe('host service\n');
    for (const address of hits.keys()) hits.set(address, 0);

    const probes = [
      `${PYTHON} -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect('${docker}'); print(s.recv(100))"`,
      `socat -u UNIX-CONNECT:dev.sock -`,
      `node -e "require('net').connect('\\0${ABSTRACT.slice(1)}').on('data', (d) => console.log(String(d))).on('error', (e) => { console.log(e.message); process.exitCode = 1 })"`,
      // A server and its client inside the sandbox, and a socketpair, as test suites, npm and python use them.
      `${PYTHON} -c "import socket; a, b = socket.socketpair(); a.send(b'pair '); s = socket.socket(socket.AF_UNIX); s.bind('/tmp/own.sock'); s.listen(); c = socket.socket(socket.AF_UNIX); c.connect('/tmp/own.sock'); s.accept()[0].send(b'own'); print(b.recv(5).decode() + c.recv(3).decode())"`,
    ];
    env.model.setScript([
      {
        name: 'probe',
        when: { lastUser: 'Probe', lastRole: 'user' },
        reply: { toolCalls: probes.map((command) => ({ name: 'bash', args: { command, description: 'Probe' } })) },
      },
      { name: 'done', when: { lastRole: 'tool' }, reply: { text: 'Probed.' } },
    ]);
    const result = await runLoom(['run', '--json', '-m', 'scripted/test-model', 'Probe'], {
      env: cliEnv,
      cwd: env.project,
    });
    expect(parseJson(result)).toMatchObject({ status: 'completed', text: 'Probed.' });
    const [python, socat, abstract, own] = await bashParts(parseJson(result).sessionId);

    expect([...hits.values()]).toEqual([0, 0, 0]);
    expect(outputOf(python)).toContain('PermissionError');
    expect(outputOf(python)).toContain(
      `${docker} is a Unix socket of the host, which the sandbox refuses to connect to`,
    );
    expect(outputOf(socat)).toMatch(/Permission denied/);
    // socat names the socket as written, relative to the workspace.
    expect(outputOf(socat)).toContain(`${dev} is a Unix socket of the host, which the sandbox refuses to connect to`);
    expect(outputOf(socat)).toContain('"sandbox": false');
    // Abstract addresses belong to a network namespace: the sandbox's own has none of the host's.
    expect(outputOf(abstract)).toContain('ECONNREFUSED');
    expect(outputOf(own)).toBe('pair own');
  }, 120_000);
});
