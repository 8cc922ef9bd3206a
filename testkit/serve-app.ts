import { serve, type ServerType } from '@hono/node-server';
import { localHostId } from '../activities/hosts/host-id.js';
import { createServeApp } from '../client/serve/app.js';
import type { ServeDeps } from '../client/serve/deps.js';
import { freePort } from './free-port.js';
import type { LoomTestEnv } from './loom-env.js';

/** A `loom serve` as the command builds it, over a test env's store and Temporal, on a free port. */
export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  base: string;
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
  return {
    base: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => (server ? server.close(() => resolve()) : resolve())),
  };
}
