import { execFile, spawn } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import {
  createServer as createHttpServer,
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
} from 'node:http';
import { connect, createServer as createTcpServer, type Socket } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isLocalAddress } from '../../../activities/permissions/local-network.js';
import { hostAllowed, startFilteringProxy, type FilteringProxy } from '../../../activities/sandbox/network-proxy.js';
import { findExecutable } from '../../../testkit/install/executables.js';
import { freePort } from '../../../testkit/network/free-port.js';

describe('hostAllowed', () => {
  it.each([
    ['registry.npmjs.org', 443, ['registry.npmjs.org'], true],
    ['REGISTRY.npmjs.org.', 443, ['registry.npmjs.org'], true],
    ['evil-registry.npmjs.org', 443, ['registry.npmjs.org'], false],
    ['api.github.com', 443, ['*.github.com'], true],
    ['a.b.github.com', 443, ['*.github.com'], true],
    ['github.com', 443, ['*.github.com'], false],
    ['notgithub.com', 443, ['*.github.com'], false],
    ['anything.example', 8080, ['*'], true],
    ['example.com', 443, ['example.com:443'], true],
    ['example.com', 80, ['example.com:443'], false],
    ['api.github.com', 22, ['*.github.com:443'], false],
    ['127.0.0.1', 5432, ['127.0.0.1'], true],
    ['127.0.0.1', 5432, ['127.0.0.1:5432'], true],
    ['127.0.0.2', 5432, ['127.0.0.1'], false],
    ['::1', 80, ['::1'], true],
    ['[::1]', 80, ['[0:0:0:0:0:0:0:1]:80'], true],
    ['::1', 81, ['[::1]:80'], false],
    ['example.com', 443, [], false],
  ] as const)('%s:%i with %j → %s', (host, port, allow, expected) => {
    expect(hostAllowed(host, port, allow)).toBe(expected);
  });
});

let folder: string;
let web: Server;
let webPort: number;
let echoPort: number;
const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
let releaseStream: () => void = () => {};
const proxies: FilteringProxy[] = [];
const tunnels: Socket[] = [];

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'loom-network-proxy-'));
  web = createHttpServer((req, res) => {
    seen.push({ path: req.url ?? '', headers: req.headers });
    if (req.url === '/stream') {
      res.writeHead(200, { 'content-type': 'text/plain' }).write('first\n');
      releaseStream = () => res.end('second\n');
      return;
    }
    const body: Buffer[] = [];
    req.on('data', (chunk: Buffer) => body.push(chunk));
    req.on('end', () =>
      res
        .writeHead(200, { 'x-seen': req.method ?? '' })
        .end(`${req.method} ${req.url} ${Buffer.concat(body).toString()}`),
    );
  });
  webPort = await listen(web);
  const echo = createTcpServer((socket) => socket.on('error', () => {}).pipe(socket));
  echoPort = await listen(echo);
});

afterAll(() => {
  web.closeAllConnections();
  web.close();
  rmSync(folder, { recursive: true, force: true });
});

afterEach(async () => {
  for (const socket of tunnels.splice(0)) socket.destroy();
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
});

function listen(server: {
  listen(port: number, host: string, done: () => void): unknown;
  address(): unknown;
}): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)),
  );
}

async function proxy(allow: string[]): Promise<FilteringProxy> {
  const started = await startFilteringProxy(join(folder, `proxy-${proxies.length}.sock`), allow);
  proxies.push(started);
  return started;
}

/** An absolute-form request through the proxy, as curl sends it with `-x`. */
function viaProxy(
  socketPath: string,
  url: string,
  options: { method?: string; body?: string; headers?: Record<string, string> } = {},
) {
  return new Promise<{ status: number; body: string; headers: IncomingHttpHeaders }>((resolve, reject) => {
    const req = request(
      {
        socketPath,
        path: url,
        method: options.method,
        headers: { host: URL.canParse(url) ? new URL(url).host : 'proxy', ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), headers: res.headers }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Sends CONNECT and reads the answer's head; on 200 the socket is then a tunnel. */
function openTunnel(socketPath: string, target: string): Promise<{ status: number; answer: string; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    tunnels.push(socket);
    let received = '';
    socket.on('error', reject);
    socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
    const onData = (chunk: Buffer) => {
      received += chunk.toString();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1]);
      if (status === 200 && received.includes('\r\n\r\n')) finish(status);
    };
    const finish = (status: number) => {
      socket.off('data', onData);
      resolve({ status, answer: received, socket });
    };
    socket.on('data', onData);
    socket.on('end', () => finish(Number(/^HTTP\/1\.1 (\d{3})/.exec(received)?.[1])));
  });
}

function nextData(socket: Socket): Promise<string> {
  return new Promise((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString())));
}

describe('startFilteringProxy', () => {
  it('forwards an allowed plain-HTTP request without proxy headers, body and all', async () => {
    const { socketPath } = await proxy([`127.0.0.1:${webPort}`]);
    const reply = await viaProxy(socketPath, `http://127.0.0.1:${webPort}/echo?x=1`, {
      method: 'POST',
      body: 'hello',
      headers: { 'x-custom': 'kept', 'proxy-authorization': 'Basic c2VjcmV0', 'proxy-connection': 'keep-alive' },
    });
    expect(reply).toMatchObject({ status: 200, body: 'POST /echo?x=1 hello', headers: { 'x-seen': 'POST' } });
    const { headers } = seen.at(-1)!;
    expect(headers).toMatchObject({ 'x-custom': 'kept', host: `127.0.0.1:${webPort}` });
    expect(headers).not.toHaveProperty('proxy-authorization');
    expect(headers).not.toHaveProperty('proxy-connection');
  });

  it('streams a response back as it arrives', async () => {
    const { socketPath } = await proxy([`127.0.0.1:${webPort}`]);
    const body = await new Promise<string>((resolve, reject) => {
      const req = request({ socketPath, path: `http://127.0.0.1:${webPort}/stream` }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString();
          if (text === 'first\n') releaseStream();
        });
        res.on('end', () => resolve(text));
      });
      req.on('error', reject).end();
    });
    expect(body).toBe('first\nsecond\n');
  });

  it('tunnels CONNECT to an allowed host, bytes both ways', async () => {
    const { socketPath, refused } = await proxy([`127.0.0.1:${echoPort}`]);
    const { status, socket } = await openTunnel(socketPath, `127.0.0.1:${echoPort}`);
    expect(status).toBe(200);
    socket.write('ping');
    expect(await nextData(socket)).toBe('ping');
    socket.write('pong');
    expect(await nextData(socket)).toBe('pong');
    expect(refused).toEqual([]);
  });

  it('refuses a host not listed with 403 naming it and the list, and records it', async () => {
    const { socketPath, refused } = await proxy(['registry.npmjs.org', '*.github.com']);
    const reply = await viaProxy(socketPath, 'http://example.org/');
    expect(reply.status).toBe(403);
    expect(reply.body).toBe(
      "Loom's sandbox refused example.org:80: the host is not in sandbox.network.allow (allowed: registry.npmjs.org, *.github.com).",
    );
    const tunnel = await openTunnel(socketPath, 'example.org:443');
    expect(tunnel.status).toBe(403);
    expect(tunnel.answer).toContain("Loom's sandbox refused example.org:443: the host is not in sandbox.network.allow");
    expect(refused.map(({ host, port }) => `${host}:${port}`)).toEqual(['example.org:80', 'example.org:443']);
  });

  it('refuses a listed port only for that port', async () => {
    const { socketPath, refused } = await proxy([`127.0.0.1:${webPort}`]);
    expect((await openTunnel(socketPath, `127.0.0.1:${echoPort}`)).status).toBe(403);
    expect(refused).toMatchObject([{ host: '127.0.0.1', port: echoPort }]);
  });

  it('keeps `*` and wildcards off loopback: IP literals, localhost, and names that resolve there', async () => {
    const { socketPath, refused } = await proxy(['*', '*.localhost']);
    const loopbackName = hostname();
    const nameIsLocal = (await lookup(loopbackName, { all: true }).catch(() => [])).some(({ address }) =>
      isLocalAddress(address),
    );
    const targets = ['127.0.0.1', 'localhost', 'app.localhost', '[::1]', ...(nameIsLocal ? [loopbackName] : [])];
    for (const host of targets) {
      const tunnel = await openTunnel(socketPath, `${host}:${echoPort}`);
      expect(tunnel.status, host).toBe(403);
      expect(tunnel.answer).toContain('a local-network address');
    }
    const reply = await viaProxy(socketPath, `http://localhost:${webPort}/`);
    expect(reply.status).toBe(403);
    expect(reply.body).toMatch(
      /^Loom's sandbox refused localhost:\d+: it resolves to 127\.0\.0\.1, a local-network address/,
    );
    expect(refused).toHaveLength(targets.length + 1);
  });

  it('lets loopback through when the host itself is listed', async () => {
    const loopbackName = hostname();
    const nameIsLocal = (await lookup(loopbackName, { all: true }).catch(() => [])).some(
      ({ address }) => address === '127.0.0.1',
    );
    const { socketPath, refused } = await proxy(['localhost', `127.0.0.1:${echoPort}`, loopbackName]);
    expect((await viaProxy(socketPath, `http://localhost:${webPort}/hi`)).body).toBe('GET /hi ');
    expect((await openTunnel(socketPath, `127.0.0.1:${echoPort}`)).status).toBe(200);
    if (nameIsLocal) expect((await viaProxy(socketPath, `http://${loopbackName}:${webPort}/hi`)).status).toBe(200);
    expect(refused).toEqual([]);
  });

  it('answers 502 for a host that does not resolve, and records it', async () => {
    const { socketPath, refused } = await proxy(['*']);
    const reply = await viaProxy(socketPath, 'http://no-such-host.invalid/');
    expect(reply.status).toBe(502);
    expect(reply.body).toMatch(
      /^Loom's sandbox could not reach no-such-host\.invalid:80: the host name does not resolve \(\w+\)\.$/,
    );
    expect(refused).toMatchObject([{ host: 'no-such-host.invalid', port: 80 }]);
  });

  it('answers 502 when nothing listens, and 400 to requests it cannot read, and keeps serving', async () => {
    const closedPort = await freePort();
    const { socketPath } = await proxy([`127.0.0.1:${closedPort}`, `127.0.0.1:${webPort}`]);
    const unreachable = await viaProxy(socketPath, `http://127.0.0.1:${closedPort}/`);
    expect(unreachable.status).toBe(502);
    expect(unreachable.body).toContain('ECONNREFUSED');
    expect((await viaProxy(socketPath, '/origin-form')).status).toBe(400);
    expect((await openTunnel(socketPath, 'no-port-here')).status).toBe(400);
    const garbage = connect(socketPath);
    tunnels.push(garbage);
    garbage.on('error', () => {});
    garbage.write('\x00\x01 not http at all\r\n\r\n');
    expect(await nextData(garbage)).toMatch(/^HTTP\/1\.1 400/);
    expect((await viaProxy(socketPath, `http://127.0.0.1:${webPort}/still`)).status).toBe(200);
  });

  it('close() ends open tunnels and requests in flight, and removes the socket file', async () => {
    const started = await proxy([`127.0.0.1:${echoPort}`, `127.0.0.1:${webPort}`]);
    const { socket } = await openTunnel(started.socketPath, `127.0.0.1:${echoPort}`);
    const tunnelEnded = new Promise((resolve) => socket.on('close', resolve));
    const streaming = await new Promise<IncomingMessage>((resolve) =>
      request({ socketPath: started.socketPath, path: `http://127.0.0.1:${webPort}/stream` }, resolve).end(),
    );
    const streamEnded = new Promise((resolve) => streaming.on('error', () => {}).on('close', resolve));
    await started.close();
    await Promise.all([tunnelEnded, streamEnded]);
    expect(streaming.complete).toBe(false);
    expect(existsSync(started.socketPath)).toBe(false);
  });

  it('works through the bridge the sandbox uses: curl -x to socat to the socket', async (context) => {
    const curl = findExecutable(['curl'], process.env);
    const socat = findExecutable(['socat'], process.env);
    context.skip(
      !curl || !socat,
      `needs curl and socat on PATH (missing: ${[!curl && 'curl', !socat && 'socat'].filter(Boolean).join(', ')})`,
    );
    const { socketPath } = await proxy([`127.0.0.1:${webPort}`]);
    const bridgePort = await freePort();
    const bridge = spawn(
      socat!,
      [`TCP-LISTEN:${bridgePort},bind=127.0.0.1,fork,reuseaddr`, `UNIX-CONNECT:${socketPath}`],
      { stdio: 'ignore' },
    );
    try {
      const run = (url: string, ...flags: string[]) =>
        promisify(execFile)(curl!, [
          '-sS',
          '--retry',
          '5',
          '--retry-connrefused',
          '--retry-delay',
          '1',
          ...flags,
          '-x',
          `http://127.0.0.1:${bridgePort}`,
          url,
        ]);
      expect((await run(`http://127.0.0.1:${webPort}/through-socat`)).stdout).toBe('GET /through-socat ');
      // --proxytunnel makes curl use CONNECT, as it does for every https:// URL.
      expect((await run(`http://127.0.0.1:${webPort}/tunnelled`, '--proxytunnel')).stdout).toBe('GET /tunnelled ');
      expect((await run('http://example.org/')).stdout).toContain("Loom's sandbox refused example.org:80");
    } finally {
      bridge.kill();
    }
  });
});
