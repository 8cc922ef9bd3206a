import { localHostId } from '../activities/hosts/host-id.js';
import { openSessionStore } from '../activities/store/open.js';
import type { SessionStore } from '../activities/store/store.js';
import type { ServedQueues } from '../worker/create-worker.js';
import type { RunningWorker } from './in-process-worker.js';
import type { MakeCurrent } from '../worker/versioning/settings.js';
import { versionReport } from './temporal/version-report.js';
import { InputError } from './input-error.js';
import { clientSettings, type ClientSettings } from './settings.js';
import { isListening } from '../dev-server/port.js';
import type { TemporalAccess } from './temporal/connect.js';
import { TemporalConfigError } from '../worker/connection/errors.js';
import type { TemporalTarget } from '../worker/connection/target.js';

/** What a command works with: settings, the store, and (when needed) Temporal and a worker. */
export class ClientContext {
  private temporalAccess: TemporalAccess | undefined;
  private worker: RunningWorker | undefined;
  private resolvedTarget: TemporalTarget | undefined;

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
  ): Promise<ClientContext> {
    const settings = clientSettings(env);
    return new ClientContext(settings, await openSessionStore(settings), env, report);
  }

  /** Whether a person answers prompts at this terminal (stdin is one; `LOOM_INTERACTIVE=1` says so in tests). */
  get interactive(): boolean {
    return Boolean(process.stdin.isTTY) || this.env.LOOM_INTERACTIVE === '1';
  }

  /** This machine's host id (`LOOM_HOST_ID`, else its name): new sessions' workspaces are here. */
  get hostId(): string {
    try {
      return localHostId(this.env);
    } catch (error) {
      throw new InputError((error as Error).message);
    }
  }

  /**
   * Which Temporal, from the `TEMPORAL_*` variables and Temporal's profile file, read when first
   * needed (commands that only read the store never do) and checked before anything starts.
   */
  async target(): Promise<TemporalTarget> {
    if (this.resolvedTarget) return this.resolvedTarget;
    const { resolveTemporalTarget } = await import('../worker/connection/target.js');
    try {
      this.resolvedTarget = resolveTemporalTarget(this.env);
    } catch (error) {
      if (error instanceof TemporalConfigError) throw new InputError(error.message);
      throw error;
    }
    for (const warning of this.resolvedTarget.warnings) this.report(`warning: ${warning}`);
    return this.resolvedTarget;
  }

  async temporal(): Promise<TemporalAccess> {
    // Temporal's client takes a moment to load: commands that only read the store never pay it.
    const target = await this.target();
    const { connectTemporal } = await import('./temporal/connect.js');
    this.temporalAccess ??= await connectTemporal(target, this.report, {
      env: this.env,
      dataDir: this.settings.dataDir,
    });
    return this.temporalAccess;
  }

  /** Temporal when it is already up (never starts the embedded server); undefined when it is not reachable. */
  async temporalIfRunning(): Promise<TemporalAccess | undefined> {
    if (this.temporalAccess) return this.temporalAccess;
    const target = await this.target().catch(() => undefined);
    if (!target || (target.embedded && !(await isListening(target.address)))) return undefined;
    try {
      return await this.temporal();
    } catch {
      return undefined;
    }
  }

  /** The build of the worker this process runs, in its worker deployment (undefined: none, or unversioned). */
  workerVersion(): RunningWorker['version'] {
    return this.worker?.version;
  }

  /** Runs a worker in this process unless one already polls the task queue; returns the queues it polls. */
  async ensureWorker(
    force = false,
    options: { hostId?: string; serve?: ServedQueues; maxCachedWorkflows?: number; makeCurrent?: MakeCurrent } = {},
  ): Promise<string[]> {
    if (this.worker) return this.worker.queues;
    const { client, target } = await this.temporal();
    const { hasLiveWorker } = await import('./temporal/connect.js');
    if (!force && (await hasLiveWorker(client, target.namespace, this.settings.taskQueue))) return [];
    const { startInProcessWorker } = await import('./in-process-worker.js');
    this.worker = await startInProcessWorker({
      target,
      taskQueue: this.settings.taskQueue,
      store: this.store,
      env: this.env,
      hostId: options.hostId ?? this.hostId,
      serve: options.serve,
      maxCachedWorkflows: options.maxCachedWorkflows,
      makeCurrent: options.makeCurrent,
    });
    const said = versionReport(this.worker.version, this.settings.taskQueue, target.embedded);
    if (said) this.report(said);
    if (options.serve !== 'shared') {
      // A first install of ripgrep is said now, not in the middle of the model's streamed answer.
      const { findRipgrep } = await import('../activities/tools/search/ripgrep.js');
      await findRipgrep(this.env).catch(() => undefined); // A bad LOOM_RIPGREP is the search tool's to report.
      const { sandboxNotice } = await import('../worker/sandbox-notice.js');
      const notice = await sandboxNotice(this.env);
      if (notice) this.report(notice);
    }
    return this.worker.queues;
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
