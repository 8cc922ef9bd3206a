import { Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import { connectionOptions } from '../../worker/connection/connection-options.js';
import { namespaceRefusalMessage, refusalMessage } from '../../worker/connection/refusal.js';
import type { TemporalTarget } from '../../worker/connection/target.js';
import { InputError } from '../input-error.js';

/** Long enough for a distant cluster's TLS handshake, short enough that a mistake is said in seconds. */
const CHECK_MS = 10_000;

/**
 * A connection to the target, opened by asking for its system info and the namespace at once.
 * Until they answer the client's retries are off: they would turn a refused certificate or API
 * key into a minute of retries and then "Failed to connect before the deadline". A refusal is a
 * `InputError` saying which setting to fix. `alongside` runs with the check (more calls in the same
 * round trip, such as listing search attributes); its result is returned once the check passed.
 */
export async function openCheckedConnection<T = undefined>(
  target: TemporalTarget,
  alongside?: (connection: Connection) => Promise<T>,
): Promise<{ connection: Connection; alongside: T | undefined }> {
  let checking = true;
  const retries = defaultGrpcRetryOptions();
  const connection = Connection.lazy({
    ...connectionOptions(target),
    interceptors: [
      makeGrpcRetryInterceptor({
        ...retries,
        retryableDecider: (attempt, status) => !checking && retries.retryableDecider(attempt, status),
      }),
    ],
  });
  const call = <R>(fn: () => Promise<R>) => connection.withDeadline(Date.now() + CHECK_MS, fn);
  try {
    const [system, namespace, extra] = await Promise.allSettled([
      call(() => connection.workflowService.getSystemInfo({})),
      call(() => connection.workflowService.describeNamespace({ namespace: target.namespace })),
      alongside ? call(() => alongside(connection)) : Promise.resolve(undefined),
    ]);
    // Unreachable or refused, the namespace's error says only that again: the system call's is the reason.
    if (system.status === 'rejected') throw new InputError(refusalMessage(system.reason, target));
    if (namespace.status === 'rejected') throw new InputError(namespaceRefusalMessage(namespace.reason, target));
    if (extra.status === 'rejected') throw extra.reason;
    return { connection, alongside: extra.value };
  } catch (error) {
    await connection.close().catch(() => undefined);
    throw error;
  } finally {
    checking = false;
  }
}

/** Checks the target as `openCheckedConnection` does, and closes the connection. */
export async function checkTemporal(target: TemporalTarget): Promise<void> {
  const { connection } = await openCheckedConnection(target);
  await connection.close();
}
