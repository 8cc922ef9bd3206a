import { dataDir } from '../activities/paths.js';

/** Where the CLI finds Temporal, its task queue and the session store. */
export interface ClientSettings {
  /** Set when the user named a server; otherwise Loom runs the embedded dev server. */
  address: string | undefined;
  embeddedAddress: string;
  namespace: string;
  taskQueue: string;
  dataDir: string;
  /** `LOOM_STORE_URL`: the PostgreSQL session store shared by several machines (else SQLite in `dataDir`). */
  storeUrl: string | undefined;
}

export function clientSettings(env: NodeJS.ProcessEnv = process.env): ClientSettings {
  return {
    address: env.TEMPORAL_ADDRESS || undefined,
    embeddedAddress: `127.0.0.1:${env.LOOM_TEMPORAL_PORT || 7233}`,
    namespace: env.TEMPORAL_NAMESPACE || 'default',
    taskQueue: env.LOOM_TASK_QUEUE || 'loom',
    dataDir: dataDir(env),
    storeUrl: env.LOOM_STORE_URL || undefined,
  };
}
