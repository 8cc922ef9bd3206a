import { serve } from '@hono/node-server';
import { hostname } from 'node:os';
import { InputError } from '../input-error.js';
import type { ClientContext } from '../context.js';
import { isLoopback } from '../../core/text/loopback.js';
import { serverToken } from './auth.js';
import { createServeApp } from './app.js';
import type { ServeDeps } from './deps.js';
import { HttpError } from './errors.js';

export interface ServeOptions {
  port: string;
  hostname: string;
  /** `false` with `--no-worker`; `true` (`--worker`, as before it was the default) or unset: run one when none polls. */
  worker?: boolean;
  cors?: string;
}

/** `loom serve`: the HTTP API over the store and Temporal, until SIGINT or SIGTERM. */
export async function serveCommand(context: ClientContext, options: ServeOptions): Promise<number> {
  const port = Number(options.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new InputError(`--port must be a port number, got "${options.port}".`, 2);
  const { token, generated } = serverToken(options.hostname, context.env);
  const target = await context.target();
  const withWorker = options.worker !== false;
  // As `loom run`: a worker runs here when none polls the task queue, so sessions started here run.
  let starting: Promise<unknown> | undefined;
  const ensureWorker = () => (starting ??= context.ensureWorker().finally(() => (starting = undefined)));
  // The server serves reads without Temporal: a worker that cannot start now is tried again on the next write.
  const workerTrouble = withWorker
    ? await ensureWorker().then(
        () => undefined,
        (error: Error) => error.message,
      )
    : undefined;
  // Temporal out of reach is the server's trouble, not the request's: 503, and the next request tries again.
  const temporal = async () => {
    try {
      return await context.temporal();
    } catch (error) {
      throw new HttpError(503, (error as Error).message);
    }
  };
  const deps: ServeDeps = {
    store: context.store,
    client: async () => (await temporal()).client,
    searchAttributes: async () => (await temporal()).searchAttributes,
    temporal: target,
    taskQueue: context.settings.taskQueue,
    dataDir: context.settings.dataDir,
    hostId: context.hostId,
    env: context.env,
    defaultDirectory: process.cwd(),
    token,
    webUrl: context.settings.webUrl,
    corsOrigins: corsOrigins(options.cors),
    ...(withWorker ? { ensureWorker } : {}),
  };
  const app = createServeApp(deps);
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const started = serve({ fetch: app.fetch, port, hostname: options.hostname }, () => resolve(started));
    started.once('error', (error) =>
      reject(new InputError(`Cannot listen on ${options.hostname}:${port}: ${error.message}`)),
    );
  });
  const address = server.address();
  const shown =
    typeof address === 'object' && address
      ? `${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`
      : `${options.hostname}:${port}`;
  const listening = typeof address === 'object' && address ? address.port : port;
  deps.webUrl ??= `http://${isWildcard(options.hostname) ? `${hostname()}:${listening}` : shown}`;
  context.report(
    `Loom server and web view on http://${shown} · API described at /doc · ${workerNote(context, withWorker, workerTrouble)}`,
  );
  if (generated)
    context.report(`Token (send it as "Authorization: Bearer <token>"; set LOOM_SERVER_TOKEN to choose one): ${token}`);
  else if (token) context.report('Every request needs "Authorization: Bearer $LOOM_SERVER_TOKEN".');
  else if (!isLoopback(options.hostname)) context.report('Warning: no token, and listening beyond this machine.');

  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  context.report('Stopping the server …');
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return 0;
}

function workerNote(context: ClientContext, withWorker: boolean, trouble: string | undefined): string {
  const queue = `task queue "${context.settings.taskQueue}"`;
  if (context.hasInProcessWorker) return `with a worker on ${queue}`;
  if (trouble) return `no worker yet (${trouble}); the next start or prompt tries again`;
  if (withWorker) return `a worker already polls ${queue}`;
  return `no worker here (--no-worker): sessions wait until \`loom worker\` polls ${queue}`;
}

/** A bind address that means every interface: links must name the machine instead. */
function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '';
}

/** `--cors`: origins (scheme, host and port, nothing else) that browsers may let call the API. */
function corsOrigins(option: string | undefined): string[] | undefined {
  if (option === undefined) return undefined;
  const origins = option
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (origin !== '*' && (!parsed || parsed.origin !== origin)) {
      throw new InputError(
        `--cors takes origins such as https://app.example.com (no path, no trailing slash); "${origin}" is not one.`,
        2,
      );
    }
  }
  return origins;
}
