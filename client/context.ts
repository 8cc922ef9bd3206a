import { openSessionStore } from '../activities/store/open.js';
import type { SessionStore } from '../activities/store/store.js';
import type { RunningWorker } from './in-process-worker.js';
import { clientSettings, type ClientSettings } from './settings.js';
import { connectTemporal, hasLiveWorker, type TemporalAccess } from './temporal.js';

/** What a command works with: settings, the store, and (when needed) Temporal and a worker. */
export class CliContext {
  private temporalAccess: TemporalAccess | undefined;
  private worker: RunningWorker | undefined;

  private constructor(
    readonly settings: ClientSettings,
    readonly store: SessionStore,
    readonly env: NodeJS.ProcessEnv,
    readonly report: (line: string) => void,
  ) {}

  /** Opens the store the settings name (`LOOM_STORE_URL`, else the SQLite file in the data folder). */
  static async open(
    env: NodeJS.ProcessEnv = process.env,
    report: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ): Promise<CliContext> {
    const settings = clientSettings(env);
    return new CliContext(settings, await openSessionStore(settings), env, report);
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
