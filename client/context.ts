import { SqliteSessionStore } from '../activities/store/sqlite.js';
import { storeFile } from '../activities/paths.js';
import type { RunningWorker } from './in-process-worker.js';
import { clientSettings, type ClientSettings } from './settings.js';
import { connectTemporal, hasLiveWorker, type TemporalAccess } from './temporal.js';

/** What a command works with: settings, the store, and (when needed) Temporal and a worker. */
export class CliContext {
  readonly settings: ClientSettings;
  readonly store: SqliteSessionStore;
  private temporalAccess: TemporalAccess | undefined;
  private worker: RunningWorker | undefined;

  constructor(
    readonly env: NodeJS.ProcessEnv = process.env,
    readonly report: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {
    this.settings = clientSettings(env);
    this.store = new SqliteSessionStore(storeFile(this.settings.dataDir));
  }

  async temporal(): Promise<TemporalAccess> {
    this.temporalAccess ??= await connectTemporal(this.settings, this.report, this.env);
    return this.temporalAccess;
  }

  /** Runs a worker in this process unless one already polls the task queue. */
  async ensureWorker(force = false): Promise<void> {
    if (this.worker) return;
    const { client, address } = await this.temporal();
    if (!force && (await hasLiveWorker(client, this.settings.namespace, this.settings.taskQueue))) return;
    const { startInProcessWorker } = await import('./in-process-worker.js');
    this.worker = await startInProcessWorker({
      address,
      namespace: this.settings.namespace,
      taskQueue: this.settings.taskQueue,
      store: this.store,
    });
  }

  get hasInProcessWorker(): boolean {
    return this.worker !== undefined;
  }

  async close(): Promise<void> {
    await this.worker?.stop();
    await this.temporalAccess?.connection.close();
    await this.store.close();
  }
}
