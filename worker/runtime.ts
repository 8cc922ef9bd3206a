import {
  DefaultLogger,
  Runtime,
  makeTelemetryFilterString,
  type LogLevel,
  type RuntimeOptions,
} from '@temporalio/worker';
import { COST_BUCKETS, METRIC } from '../core/runs/metric-names.js';
import { MetricsPortError, type MetricsAddress } from './metrics/metrics-address.js';

let installed = false;
let serverDown = false;
/** When the server last came back (ms since the epoch): warnings of the outage may reach the logger after it. */
let serverBackAt = 0;
/** How long after the server is back its outage's warnings still arrive (core forwards its logs in batches, and a retry that began before logs after). */
const OUTAGE_WARNINGS_LINGER_MS = 5_000;

/**
 * While the Temporal server is known to be down (and the CLI has said so in one line), the SDK's
 * warnings about its polls failing and being retried say nothing more: they are dropped, and so
 * are those of the outage that arrive just after it ended.
 */
export function setServerDown(down: boolean): void {
  if (serverDown && !down) serverBackAt = Date.now();
  serverDown = down;
}

function outageWarning(level: LogLevel, timestampNanos: bigint): boolean {
  if (level === 'ERROR') return false;
  if (serverDown) return true;
  return Number(timestampNanos / 1_000_000n) < serverBackAt + OUTAGE_WARNINGS_LINGER_MS;
}

/**
 * Installs the Temporal runtime with a logger that keeps the terminal quiet: warnings and errors
 * only, unless `LOOM_LOG_LEVEL` says otherwise; with `metrics`, it serves Prometheus metrics (the
 * SDK's and Loom's own, see activities/telemetry/metrics.ts) there. Must run before the first
 * worker is created.
 */
export function installQuietRuntime(defaultLevel: LogLevel = 'WARN', options: { metrics?: MetricsAddress } = {}): void {
  if (installed) return;
  const level = (process.env.LOOM_LOG_LEVEL?.toUpperCase() as LogLevel | undefined) || defaultLevel;
  installed = true;
  try {
    Runtime.install(runtimeOptions(level, options.metrics));
  } catch (error) {
    installed = false;
    const reason = /Address already in use/i.test((error as Error).message)
      ? 'the port is in use (another worker on this machine?)'
      : (error as Error).message;
    throw new MetricsPortError(
      `Cannot serve metrics on ${options.metrics!.bindAddress} (${options.metrics!.source}): ${reason}`,
    );
  }
}

function runtimeOptions(level: LogLevel, metrics: MetricsAddress | undefined): RuntimeOptions {
  return {
    // Loom decides what a signal means (Ctrl-C cancels a run; `loom worker` drains and stops).
    shutdownSignals: [],
    logger: new DefaultLogger(level, (entry) => {
      // A host's queue serves activities only, by design.
      if (entry.message.startsWith('No workflows registered')) return;
      if (outageWarning(entry.level, entry.timestampNanos)) return;
      const meta = entry.meta && Object.keys(entry.meta).length ? ` ${JSON.stringify(entry.meta)}` : '';
      process.stderr.write(`[temporal ${entry.level.toLowerCase()}] ${entry.message}${meta}\n`);
    }),
    telemetryOptions: {
      logging: { filter: makeTelemetryFilterString({ core: level }), forward: {} },
      ...(metrics
        ? {
            metrics: {
              prometheus: {
                bindAddress: metrics.bindAddress,
                countersTotalSuffix: true,
                histogramBucketOverrides: { [METRIC.cost]: COST_BUCKETS },
              },
            },
          }
        : {}),
    },
  };
}
