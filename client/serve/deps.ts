import type { Client } from '@temporalio/client';
import type { SessionStore } from '../../activities/store/store.js';
import type { TemporalTarget } from '../../worker/connection/target.js';

/** What the server works over: a `ClientContext` provides it in `loom serve`, tests build it by hand. */
export interface ServeDeps {
  store: SessionStore;
  /** Temporal, connected on first use (reads never need it). */
  client(): Promise<Client>;
  /** Whether runs may carry Loom's search attributes (the namespace has them). */
  searchAttributes(): Promise<boolean>;
  /** Which Temporal: the web view links runs into its UI. */
  temporal: Pick<TemporalTarget, 'address' | 'namespace' | 'embedded'>;
  taskQueue: string;
  dataDir: string;
  /** This machine's host id: new sessions' directories are here. */
  hostId: string;
  env: NodeJS.ProcessEnv;
  /** The project directory of a session started without one. */
  defaultDirectory: string;
  /** When set, every route demands `Authorization: Bearer <token>`. */
  token?: string;
  /** Where the web view is (`LOOM_WEB_URL`, else this server): runs it starts link to their pages. */
  webUrl?: string;
  /** Origins whose pages may call the API from a browser (CORS); none when unset. */
  corsOrigins?: string[];
  /**
   * Runs a worker in this process when none polls the task queue; called before every write, since
   * a write may start a run. Unset (`--no-worker`): runs wait for a worker started elsewhere.
   */
  ensureWorker?(): Promise<unknown>;
}
