/** Where a worker serves Prometheus metrics, and which setting said so. */
export interface MetricsAddress {
  /** `host:port`. */
  bindAddress: string;
  /** `--metrics-port`, or `LOOM_METRICS_PORT`. */
  source: string;
}

export class MetricsPortError extends Error {
  override name = 'MetricsPortError';
}

/**
 * `--metrics-port` (else `LOOM_METRICS_PORT`): a port, served on every interface so Prometheus can
 * scrape it from elsewhere, or `host:port` to choose one (`127.0.0.1:9464` keeps it on this machine).
 */
export function metricsAddress(flag: string | undefined, env: NodeJS.ProcessEnv): MetricsAddress | undefined {
  const [value, source] =
    flag !== undefined ? [flag, '--metrics-port'] : [env.LOOM_METRICS_PORT?.trim(), 'LOOM_METRICS_PORT'];
  if (!value) return undefined;
  const match = /^(?:(\[[0-9a-fA-F:]+\]|[^\s:[\]]+):)?(\d+)$/.exec(value);
  const port = match ? Number(match[2]) : NaN;
  if (!match || port < 1 || port > 65535) {
    throw new MetricsPortError(`${source} is "${value}": give a port (9464) or host:port (127.0.0.1:9464).`);
  }
  return { bindAddress: `${match[1] ?? '0.0.0.0'}:${port}`, source };
}
