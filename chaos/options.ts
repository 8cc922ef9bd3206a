/** How big a chaos run is and how hard it hits; every knob has an environment variable. */
export interface ChaosOptions {
  /** Worker processes SIGKILLed in all (`CHAOS_KILLS`). */
  kills: number;
  /** Pause between two kills, ms (`CHAOS_KILL_EVERY_MS`; each pause is drawn from 0.5× to 1.5×). */
  killEveryMs: number;
  /** `loom worker` processes kept running (`CHAOS_WORKERS`). */
  workers: number;
  /** Tool-loop sessions started per wave; a new wave starts while kills remain (`CHAOS_SESSIONS`). */
  sessionsPerWave: number;
  /** Subagent trees per wave (`CHAOS_TREES`), each with `children` parallel `task` calls (`CHAOS_CHILDREN`). */
  treesPerWave: number;
  children: number;
  /** Sessions left waiting on a permission ask until the faults are over (`CHAOS_ASKS`). */
  asks: number;
  /** Tasks in the batch (`CHAOS_BATCH_TASKS`) and how many run at once (`CHAOS_BATCH_CONCURRENCY`). */
  batchTasks: number;
  batchConcurrency: number;
  /**
   * Stop and start the run's own Temporal dev server once mid-session (`CHAOS_TEMPORAL_RESTART=0`
   * turns it off). Never a server `TEMPORAL_ADDRESS` or a profile names: that restart is skipped.
   */
  temporalRestart: boolean;
  /** Restart PostgreSQL once mid-batch (`CHAOS_PG_RESTART=0` turns it off). */
  postgresRestart: boolean;
  /** How long each server stays down, ms (`CHAOS_OUTAGE_MS`). */
  outageMs: number;
  /**
   * Share of model requests answered with a 500, and left hanging or cut
   * mid-answer (`CHAOS_MODEL_500`, `CHAOS_MODEL_HANG`).
   */
  model500: number;
  modelHang: number;
  /** After the faults, how long runs get to finish before they count as stuck, ms (`CHAOS_SETTLE_MS`). */
  settleMs: number;
  /**
   * Whether a worker that exits on its own (not killed) fails the run (`CHAOS_WORKER_CRASH_FAILS`).
   * Either way it is replaced, counted and its log kept.
   */
  workerCrashFails: boolean;
  /** Seed of the random choices, so a failing run can be repeated (`CHAOS_SEED`). */
  seed: number;
  /** Print progress lines to stderr. */
  verbose: boolean;
}

/** The full run of `npm run chaos`: over 100 kills and a 500-task batch. */
export const FULL_RUN: ChaosOptions = {
  kills: 100,
  killEveryMs: 4_000,
  workers: 3,
  sessionsPerWave: 6,
  treesPerWave: 1,
  children: 3,
  asks: 4,
  batchTasks: 500,
  batchConcurrency: 20,
  temporalRestart: true,
  postgresRestart: true,
  outageMs: 3_000,
  model500: 0.05,
  modelHang: 0.02,
  settleMs: 600_000,
  workerCrashFails: true,
  seed: Date.now() % 1_000_000,
  verbose: true,
};

/** `FULL_RUN` with whatever `CHAOS_*` variables say. */
export function optionsFromEnv(env: NodeJS.ProcessEnv, base: ChaosOptions = FULL_RUN): ChaosOptions {
  const number = (name: string, fallback: number, min = 0) => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min)
      throw new Error(`${name}=${JSON.stringify(raw)}: expected a number of at least ${min}`);
    return value;
  };
  const flag = (name: string, fallback: boolean) =>
    env[name]?.trim() ? !['0', 'false', 'no', 'off'].includes(env[name]!.trim().toLowerCase()) : fallback;
  return {
    kills: number('CHAOS_KILLS', base.kills),
    killEveryMs: number('CHAOS_KILL_EVERY_MS', base.killEveryMs, 100),
    workers: number('CHAOS_WORKERS', base.workers, 2),
    sessionsPerWave: number('CHAOS_SESSIONS', base.sessionsPerWave),
    treesPerWave: number('CHAOS_TREES', base.treesPerWave),
    children: number('CHAOS_CHILDREN', base.children, 1),
    asks: number('CHAOS_ASKS', base.asks),
    batchTasks: number('CHAOS_BATCH_TASKS', base.batchTasks),
    batchConcurrency: number('CHAOS_BATCH_CONCURRENCY', base.batchConcurrency, 1),
    temporalRestart: flag('CHAOS_TEMPORAL_RESTART', base.temporalRestart),
    postgresRestart: flag('CHAOS_PG_RESTART', base.postgresRestart),
    outageMs: number('CHAOS_OUTAGE_MS', base.outageMs),
    model500: number('CHAOS_MODEL_500', base.model500),
    modelHang: number('CHAOS_MODEL_HANG', base.modelHang),
    settleMs: number('CHAOS_SETTLE_MS', base.settleMs, 1_000),
    workerCrashFails: flag('CHAOS_WORKER_CRASH_FAILS', base.workerCrashFails),
    seed: number('CHAOS_SEED', base.seed),
    verbose: flag('CHAOS_VERBOSE', base.verbose),
  };
}

/** A small deterministic generator (mulberry32), so a seed repeats a run's choices. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
