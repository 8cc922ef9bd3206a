import { lookup } from 'node:dns/promises';
import { rm } from 'node:fs/promises';
import {
  createServer,
  request,
  STATUS_CODES,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { connect, isIP, type Socket } from 'node:net';
import { isLocalAddress } from '../permissions/local-network.js';
import { describeAllowList, hostAllowed, hostListedExactly, normalizeHost } from './network-allow.js';

export { hostAllowed } from './network-allow.js';

export interface RefusedConnection {
  host: string;
  port: number;
  reason: string;
}

export interface FilteringProxy {
  /** The Unix socket it listens on. */
  socketPath: string;
  /** What it refused, in order (the bash tool tells the model which host was refused and why). */
  refused: RefusedConnection[];
  close(): Promise<void>;
}

const CONNECT_TIMEOUT_MS = 30_000;

/**
 * Headers that describe one hop (the sandbox's client to this proxy), not the request itself.
 * Transfer-Encoding stays: Node de-chunks what it reads and re-chunks what it writes when the header
 * is set, so passing it on keeps a chunked body framed (a chunked GET would otherwise lose it).
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
]);

type Admission = { addresses: string[] } | { status: 403 | 502; reason: string };

/** Starts a proxy on `socketPath` that lets through only hosts `allow` lists. */
export async function startFilteringProxy(socketPath: string, allow: readonly string[]): Promise<FilteringProxy> {
  const refused: RefusedConnection[] = [];
  const open = new Set<Socket>();
  let closed = false;
  const track = (socket: Socket) => {
    if (closed) return void socket.destroy();
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  };

  /** The addresses to connect to, resolved once here so nothing can rebind the name after the check. */
  const admit = async (host: string, port: number): Promise<Admission> => {
    const refuse = (status: 403 | 502, reason: string): Admission => {
      refused.push({ host, port, reason });
      return { status, reason };
    };
    if (!hostAllowed(host, port, allow))
      return refuse(403, `the host is not in sandbox.network.allow (${describeAllowList(allow)})`);
    let addresses: string[];
    try {
      addresses = await resolve(host);
    } catch (error) {
      return refuse(502, `the host name does not resolve (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
    const local = addresses.find(isLocalAddress);
    if (local !== undefined && !hostListedExactly(host, port, allow)) {
      return refuse(
        403,
        `it resolves to ${local}, a local-network address, which only an entry naming this host exactly ` +
          `(not a wildcard) in sandbox.network.allow lets through (${describeAllowList(allow)})`,
      );
    }
    return { addresses };
  };

  const tunnel = async (target: string, client: Socket, head: Buffer) => {
    const authority = parseAuthority(target);
    if (!authority) return answerRaw(client, 400, `Loom's sandbox proxy takes CONNECT host:port; got "${target}".`);
    const { host, port } = authority;
    const admission = await admit(host, port);
    if ('reason' in admission)
      return answerRaw(client, admission.status, explain(admission.status, host, port, admission.reason));
    let upstream: Socket;
    try {
      upstream = await connectToFirst(admission.addresses, port, track);
    } catch (error) {
      return answerRaw(client, 502, explain(502, host, port, (error as Error).message));
    }
    if (client.destroyed) return upstream.destroy();
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    closeTogether(client, upstream);
    client.pipe(upstream);
    upstream.pipe(client);
  };

  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    const url = parseAbsoluteUrl(req.url ?? '');
    if (!url)
      return answer(
        res,
        400,
        `Loom's sandbox proxy takes requests in absolute form (GET http://host/path) and HTTPS as CONNECT; got "${req.url}".`,
      );
    const host = normalizeHost(url.hostname);
    const port = Number(url.port || 80);
    const admission = await admit(host, port);
    if ('reason' in admission)
      return answer(res, admission.status, explain(admission.status, host, port, admission.reason));
    let upstream: Socket;
    try {
      upstream = await connectToFirst(admission.addresses, port, track);
    } catch (error) {
      return answer(res, 502, explain(502, host, port, (error as Error).message));
    }
    const outgoing = request({
      createConnection: () => upstream,
      method: req.method,
      path: url.pathname + url.search,
      headers: { ...withoutHopByHop(req.headers), host: url.host, connection: 'close' },
    });
    outgoing.on('response', (incoming) => {
      try {
        res.writeHead(incoming.statusCode ?? 502, incoming.statusMessage, withoutHopByHop(incoming.headers));
      } catch (error) {
        incoming.destroy();
        return answer(
          res,
          502,
          explain(502, host, port, `its response could not be passed on (${(error as Error).message})`),
        );
      }
      incoming.pipe(res);
      incoming.on('close', () => {
        if (!incoming.complete) res.destroy();
      });
    });
    outgoing.on('error', (error) => {
      if (res.headersSent) res.destroy();
      else answer(res, 502, explain(502, host, port, `the request failed (${error.message})`));
    });
    res.on('close', () => outgoing.destroy());
    req.on('error', () => outgoing.destroy());
    req.pipe(outgoing);
  };

  const server = createServer();
  server.on('connection', track);
  server.on('request', (req, res) => void forward(req, res));
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    client.on('error', () => client.destroy());
    void tunnel(req.url ?? '', client, head);
  });
  // Accept failures (EMFILE) come here after listening; they cost one connection, not the worker.
  server.on('error', () => {});

  // A worker that died leaves its socket file behind, and listening on it would fail (EADDRINUSE).
  await rm(socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });

  return {
    socketPath,
    refused,
    async close() {
      if (closed) return;
      closed = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of open) socket.destroy();
      await stopped;
      await rm(socketPath, { force: true });
    },
  };
}

async function resolve(host: string): Promise<string[]> {
  if (isIP(host)) return [host];
  // Never asked of DNS: RFC 6761 reserves these names for this machine.
  if (host === 'localhost' || host.endsWith('.localhost')) return ['127.0.0.1', '::1'];
  const found = await lookup(host, { all: true, verbatim: true });
  if (found.length === 0) throw Object.assign(new Error(`${host} has no addresses`), { code: 'ENODATA' });
  return found.map(({ address }) => address);
}

/** A connection to the first of `addresses` that answers, in order. */
async function connectToFirst(addresses: string[], port: number, track: (socket: Socket) => void): Promise<Socket> {
  const failures: string[] = [];
  for (const address of addresses) {
    try {
      return await new Promise<Socket>((resolve, reject) => {
        const socket = connect({ host: address, port, timeout: CONNECT_TIMEOUT_MS });
        track(socket);
        // Stays on once connected (a settled promise ignores it): an error before the caller's
        // own listener is attached must not become an uncaught exception.
        socket.on('error', reject);
        // Destroyed without an error when the proxy closes mid-connect.
        socket.once('close', () => reject(new Error('the proxy closed')));
        socket.once('timeout', () => socket.destroy(new Error(`no answer within ${CONNECT_TIMEOUT_MS / 1000}s`)));
        socket.once('connect', () => {
          socket.setTimeout(0);
          resolve(socket);
        });
      });
    } catch (error) {
      failures.push(`${address}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }
  throw new Error(`connecting failed (${failures.join('; ')})`);
}

/** When one side closes, the other still gets what was sent to it, then closes too. */
function closeTogether(a: Socket, b: Socket): void {
  const destroyBoth = () => {
    a.destroy();
    b.destroy();
  };
  a.on('error', destroyBoth);
  b.on('error', destroyBoth);
  a.once('close', () => b.end(() => b.destroy()));
  b.once('close', () => a.end(() => a.destroy()));
}

function parseAuthority(target: string): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(target);
  const port = Number(match?.[2]);
  if (!match || port < 1 || port > 65535) return undefined;
  return { host: normalizeHost(match[1]), port };
}

function parseAbsoluteUrl(target: string): URL | undefined {
  try {
    const url = new URL(target);
    return url.protocol === 'http:' && url.hostname !== '' ? url : undefined;
  } catch {
    return undefined;
  }
}

function withoutHopByHop(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = String(headers.connection ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase());
  return Object.fromEntries(
    Object.entries(headers).filter(
      ([name]) => !HOP_BY_HOP.has(name) && !name.startsWith('proxy-') && !named.includes(name),
    ),
  );
}

function explain(status: 403 | 502, host: string, port: number, reason: string): string {
  const authority = isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
  return `${status === 403 ? "Loom's sandbox refused" : "Loom's sandbox could not reach"} ${authority}: ${reason}.`;
}

function answer(res: ServerResponse, status: number, body: string): void {
  if (res.destroyed) return;
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  res.end(body);
}

/** An answer to CONNECT, written on the raw socket Node hands over for it. */
function answerRaw(client: Socket, status: number, body: string): void {
  if (client.destroyed) return;
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ];
  client.end(`${head.join('\r\n')}\r\n\r\n${body}`, () => client.destroy());
}
