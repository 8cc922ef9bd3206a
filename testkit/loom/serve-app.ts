import { serve, type ServerType } from '@hono/node-server';
import { localHostId } from '../../activities/hosts/host-id.js';
import { createServeApp } from '../../client/serve/app.js';
import type { ServeDeps } from '../../client/serve/deps.js';
import { freePort } from '../network/free-port.js';
import type { LoomTestEnv } from './loom-env.js';

/** A `loom serve` as the command builds it, over a test env's store and Temporal, on a free port. */
export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** A JSON request with the server's token, if it has one: the status and the parsed body. */
  request<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** The same, for a request that must succeed: the body, or an error naming the request and the answer. */
  ok<T>(method: string, path: string, body?: unknown): Promise<T>;
  close(): Promise<void>;
}

export async function startTestServer(
  env: LoomTestEnv,
  options: Partial<Pick<ServeDeps, 'store' | 'token' | 'webUrl' | 'corsOrigins'>> = {},
): Promise<TestServer> {
  const app = createServeApp({
    store: env.store,
    client: () => Promise.resolve(env.client),
    searchAttributes: () => Promise.resolve(true),
    temporal: { address: env.env.TEMPORAL_ADDRESS!, namespace: 'default', embedded: false },
    taskQueue: env.taskQueue,
    dataDir: env.dataDir,
    hostId: localHostId(env.env),
    env: env.env,
    defaultDirectory: env.project,
    ...options,
  });
  const port = await freePort();
  let server: ServerType | undefined;
  await new Promise<void>(
    (resolve) => (server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => resolve())),
  );
  const base = `http://127.0.0.1:${port}`;
  const request = async <T>(method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as T };
  };
  return {
    base,
    request,
    async ok<T>(method: string, path: string, body?: unknown) {
      const answer = await request<T>(method, path, body);
      if (answer.status >= 300)
        throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return answer.body;
    },
    close: () => new Promise((resolve) => (server ? server.close(() => resolve()) : resolve())),
  };
}
