import { Connection } from '@temporalio/client';
import { connectionOptions } from '../worker/temporal/connection-options.js';
import { namespaceRefusalMessage, refusalMessage } from '../worker/temporal/refusal.js';
import type { TemporalTarget } from '../worker/temporal/target.js';
import { CliError } from './cli-error.js';

/** Long enough for a distant cluster's TLS handshake, short enough that a mistake is said in seconds. */
const CHECK_MS = 10_000;

/**
 * Asks the target for its system info and the namespace, on a connection without the client's
 * retries: those would turn a refused certificate or API key into a minute of retries and then
 * "Failed to connect before the deadline". A refusal is a `CliError` saying which setting to fix.
 */
export async function checkTemporal(target: TemporalTarget): Promise<void> {
  const probe = Connection.lazy({ ...connectionOptions(target), interceptors: [] });
  const call = <T>(fn: () => Promise<T>) => probe.withDeadline(Date.now() + CHECK_MS, fn);
  try {
    try {
      await call(() => probe.workflowService.getSystemInfo({}));
    } catch (error) {
      throw new CliError(refusalMessage(error, target));
    }
    try {
      await call(() => probe.workflowService.describeNamespace({ namespace: target.namespace }));
    } catch (error) {
      throw new CliError(namespaceRefusalMessage(error, target));
    }
  } finally {
    await probe.close().catch(() => undefined);
  }
}
