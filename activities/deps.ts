import type { SessionStore } from './store/store.js';

/** What activities need from outside: injected so tests pass a store in a temp folder. */
export interface ActivityDeps {
  store: SessionStore;
  /** Environment for provider keys and config (`process.env` in production). */
  env: NodeJS.ProcessEnv;
  /** Loom's data folder (saved tool outputs). */
  dataDir: string;
  /**
   * The host whose workspaces this worker's tools reach (see core/runs/workspace.ts); undefined for a
   * worker that serves only the shared queue.
   */
  hostId?: string;
}
