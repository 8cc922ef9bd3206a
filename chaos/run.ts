// One chaos run from start to verdict: start the cluster, leave sessions waiting on asks, start
// the batch, run waves of tool loops and subagent trees while the faults hit, answer the asks,
// let everything finish, then check the store and the workspace.
import { Client, Connection } from '@temporalio/client';
import { openSessionStore } from '../activities/store/open.js';
import type { SessionStore } from '../activities/store/store.js';
import type { PermissionRecords } from '../activities/store/permissions.js';
import { connectTemporal } from '../client/temporal/connect.js';
import type { TemporalTarget } from '../worker/connection/target.js';
import { Checker } from './checks.js';
import { startCluster } from './cluster.js';
import { runFaults, type FaultLog } from './faults.js';
import { seededRandom, type ChaosOptions } from './options.js';
import { isClean, type ChaosReport } from './report.js';
import { sleep } from './retry.js';
import { chaosScript, type FaultCounts } from './script.js';
import { Driver, type RootRun } from './workloads.js';

/**
 * `named`: the server the environment names (`resolveTemporalTarget`), which the run uses as it is
 * and never restarts; without it, the run starts a dev server of its own.
 */
export async function runChaos(
  options: ChaosOptions,
  log: (line: string) => void = () => undefined,
  named?: TemporalTarget,
): Promise<ChaosReport> {
  const started = Date.now();
  const seconds = (from: number) => Math.round((Date.now() - from) / 100) / 10;
  const random = seededRandom(options.seed);
  const counts: FaultCounts = { requests: 0, errors500: 0, hangs: 0, drops: 0 };
  const starting = named
    ? `using Temporal at ${named.address}, namespace ${named.namespace} (${named.sources.address}); starting`
    : 'starting Temporal,';
  log(`seed ${options.seed}: ${starting} PostgreSQL, the scripted model and ${options.workers} workers`);
  const cluster = await startCluster({ workers: options.workers, named });
  let store: SessionStore | undefined;
  let connection: Connection | undefined;
  let keep = false;
  try {
    cluster.model.setScript(
      chaosScript(
        options.children,
        { error500: options.model500, hang: options.modelHang, random: seededRandom(options.seed + 1) },
        counts,
      ),
    );
    // A named server is reached as every Loom command reaches it (its search attributes added, or runs go without).
    const named = cluster.temporal.named
      ? await connectTemporal(cluster.temporal.named, log, { dataDir: cluster.env.LOOM_DATA_DIR! })
      : undefined;
    connection = named?.connection ?? (await Connection.connect({ address: cluster.temporal.address }));
    const client = named?.client ?? new Client({ connection });
    const searchAttributes = named?.searchAttributes ?? true;
    store = await openSessionStore({ dataDir: cluster.env.LOOM_DATA_DIR!, storeUrl: cluster.storeUrl });
    const driver = new Driver(client, store, cluster.taskQueue, cluster.project, searchAttributes);
    const setup = seconds(started);

    const asks = await Promise.all(Array.from({ length: options.asks }, (_, i) => driver.startRoot('ask', `A${i}`)));
    const requests = await waitForAsks(store, asks, log);
    const batchTags = Array.from({ length: options.batchTasks }, (_, i) => `B${i}`);
    const batch = options.batchTasks ? await driver.startBatch(batchTags, options.batchConcurrency) : undefined;
    if (batch) log(`batch ${batch.batchId}: ${options.batchTasks} tasks at concurrency ${options.batchConcurrency}`);

    const faultsStarted = Date.now();
    const faults = runFaults(cluster, options, random, {
      log,
      batchDone: async () => {
        if (!batch) return undefined;
        const byStatus = await store!.batchCounts(batch.batchId);
        return (byStatus.completed + byStatus.failed + byStatus.cancelled) / options.batchTasks;
      },
    });
    let faultLog: FaultLog | undefined;
    const faultsOver = faults.then((result) => (faultLog = result));
    let waves = 0;
    while (!faultLog) {
      const tag = `W${waves++}`;
      const runs = await Promise.all([
        ...Array.from({ length: options.sessionsPerWave }, (_, i) => driver.startRoot('loop', `${tag}L${i}`)),
        ...Array.from({ length: options.treesPerWave }, (_, i) => driver.startRoot('tree', `${tag}T${i}`)),
      ]);
      if (runs.length === 0) break;
      await Promise.race([Promise.all(runs.map((run) => run.outcome)), faultsOver]);
    }
    await faultsOver;
    const faultSeconds = seconds(faultsStarted);
    log(`faults over after ${faultSeconds} s (${waves} waves of sessions); answering ${asks.length} asks`);

    const settleStarted = Date.now();
    const answers = new Map<string, string | undefined>();
    for (const ask of asks) {
      const requestId = requests.get(ask.sessionId);
      answers.set(ask.sessionId, requestId ? await driver.answer(requestId) : 'its permission request never appeared');
    }
    const everything = Promise.all([...driver.roots.map((root) => root.outcome), batch?.outcome]);
    await Promise.race([everything, sleep(options.settleMs)]);
    driver.stop();
    const settle = seconds(settleStarted);
    log(`runs settled after ${settle} s; checking`);

    const checksStarted = Date.now();
    const checker = new Checker(store, options.children);
    for (const root of driver.roots) {
      const outcome = await root.outcome;
      if (outcome === 'stuck') checker.stuck(root.sessionId);
      if (outcome !== 'completed')
        checker.problem(`${root.kind} ${root.tag} (${root.sessionId}): its run ended ${outcome}`);
      await checker.session(root.kind, root.tag, root.sessionId);
      if (root.kind === 'ask') await checker.ask(root.sessionId, root.tag, answers.get(root.sessionId));
    }
    if (batch) {
      const outcome = await batch.outcome;
      if (outcome === 'stuck') checker.stuck(batch.batchId);
      await checker.batch(batch.batchId, options.batchTasks, outcome);
    }
    await checker.strays();
    checker.sideEffects(cluster.project);
    await checker.openRuns(client, cluster.taskQueue);
    const findings = checker.findings;
    for (const failure of cluster.workers.startFailures)
      checker.problem(`a replacement worker did not start: ${failure.slice(0, 300)}`);
    const crashes = cluster.workers.crashes;
    if (crashes && options.workerCrashFails)
      checker.problem(`${crashes} worker(s) exited without being killed; see ${cluster.root}/logs`);
    const ok = isClean(findings);
    // A failed run keeps its folder (worker logs, the own dev server's database and log, the
    // workspace); so does a run from the command line where a worker crashed.
    keep = !ok || (crashes > 0 && options.verbose);
    return {
      faults: faultLog!,
      model: counts,
      findings,
      workerCrashes: cluster.workers.crashes,
      seconds: { setup, faults: faultSeconds, settle, checks: seconds(checksStarted), total: seconds(started) },
      ok,
      kept: keep ? cluster.root : undefined,
    };
  } finally {
    await store?.close().catch(() => undefined);
    await connection?.close().catch(() => undefined);
    await cluster.close({ keep });
  }
}

/** Waits until every ask session has its permission request pending; returns request ids by session. */
async function waitForAsks(
  store: PermissionRecords,
  asks: RootRun[],
  log: (line: string) => void,
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const deadline = Date.now() + 120_000;
  while (found.size < asks.length && Date.now() < deadline) {
    for (const request of await store.permissionRequests({ status: 'pending' }))
      found.set(request.sessionID, request.id);
    if (found.size < asks.length) await sleep(300);
  }
  if (asks.length) log(`${found.size}/${asks.length} sessions wait on a permission ask`);
  return found;
}
