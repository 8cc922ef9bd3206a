// The faults of a chaos run, one at a time: SIGKILLs of random workers at random moments, one
// stop and start of the run's own Temporal dev server while sessions run (not of a server the
// environment names), one PostgreSQL restart while the batch runs. (The model's 500s and hung
// answers are in script.ts.)
import type { Cluster } from './cluster.js';
import type { ChaosOptions } from './options.js';
import type { TemporalDevServer } from './temporal.js';
import { sleep } from './retry.js';

export interface FaultLog {
  kills: number;
  temporalRestarts: number;
  /** Why the Temporal restart was left out, when it was. */
  temporalSkipped?: string;
  postgresRestarts: number;
  /** How long each server was unreachable, ms. */
  temporalDownMs: number;
  postgresDownMs: number;
  durationMs: number;
}

export interface FaultHooks {
  /** Share of the batch done (0..1), or undefined when it cannot be read now. */
  batchDone(): Promise<number | undefined>;
  log(line: string): void;
}

export async function runFaults(
  cluster: Cluster,
  options: ChaosOptions,
  random: () => number,
  hooks: FaultHooks,
): Promise<FaultLog> {
  const started = Date.now();
  const log: FaultLog = {
    kills: 0,
    temporalRestarts: 0,
    postgresRestarts: 0,
    temporalDownMs: 0,
    postgresDownMs: 0,
    durationMs: 0,
  };
  // The Temporal restart comes a third of the way through the kills (or after the first one).
  const temporalAt = Math.max(1, Math.floor(options.kills / 3));
  let temporalDue = options.temporalRestart;
  const { devServer, named } = cluster.temporal;
  if (temporalDue && !devServer) {
    temporalDue = false;
    log.temporalSkipped = `the run uses the Temporal that ${named?.sources.address ?? 'the environment'} names (${cluster.temporal.address}), which the chaos run cannot restart`;
    hooks.log(`Temporal restart skipped: ${log.temporalSkipped}`);
  }
  let postgresDue = options.postgresRestart && options.batchTasks > 0;

  const restartTemporal = async (server: TemporalDevServer) => {
    const down = Date.now();
    hooks.log('stopping the Temporal dev server');
    await server.stop();
    await sleep(options.outageMs);
    await server.start();
    log.temporalDownMs = Date.now() - down;
    log.temporalRestarts++;
    hooks.log(`Temporal dev server back after ${log.temporalDownMs} ms`);
  };
  const restartPostgres = async () => {
    const down = Date.now();
    hooks.log('restarting PostgreSQL');
    await cluster.postgres.restart(options.outageMs);
    log.postgresDownMs = Date.now() - down;
    log.postgresRestarts++;
    hooks.log(`PostgreSQL back after ${log.postgresDownMs} ms`);
  };
  /** Mid-batch: a tenth of it done, and not all of it. */
  const batchUnderWay = async () => {
    const done = await hooks.batchDone().catch(() => undefined);
    return done !== undefined && done >= 0.1 && done < 1;
  };

  let killsEndedAt: number | undefined;
  while (cluster.workers.kills < options.kills || temporalDue || postgresDue) {
    // Between two faults, watch the batch: PostgreSQL goes down as soon as it is under way.
    const until = Date.now() + options.killEveryMs * (0.5 + random());
    while (Date.now() < until) {
      if (postgresDue && (await batchUnderWay())) {
        postgresDue = false;
        await restartPostgres();
      }
      await sleep(Math.min(250, Math.max(0, until - Date.now())));
    }
    if (temporalDue && devServer && cluster.workers.kills >= Math.min(temporalAt, options.kills)) {
      temporalDue = false;
      await restartTemporal(devServer);
      continue;
    }
    if (postgresDue && (await batchUnderWay())) {
      postgresDue = false;
      await restartPostgres();
      continue;
    }
    if (postgresDue && cluster.workers.kills >= options.kills) {
      killsEndedAt ??= Date.now();
      const done = await hooks.batchDone().catch(() => undefined);
      // The batch finished before it could be hit, or never got going: say so rather than wait.
      if ((done !== undefined && done >= 1) || Date.now() - killsEndedAt > options.settleMs) {
        hooks.log(
          `PostgreSQL was not restarted: the batch was ${done === undefined ? 'unreadable' : `${Math.round(done * 100)}% done`} when the kills ended`,
        );
        postgresDue = false;
      }
      continue;
    }
    if (cluster.workers.kills < options.kills) {
      await cluster.workers.killOne(random);
      if (cluster.workers.kills % 10 === 0 || options.kills < 20)
        hooks.log(`${cluster.workers.kills}/${options.kills} workers killed`);
    }
  }
  log.kills = cluster.workers.kills;
  log.durationMs = Date.now() - started;
  return log;
}
