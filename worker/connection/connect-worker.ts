import { NativeConnection } from '@temporalio/worker';
import { connectionOptions } from './connection-options.js';
import { TemporalRefusedError } from './errors.js';
import { refusalMessage } from './refusal.js';
import type { TemporalTarget } from './target.js';

/** A worker's connection to the target; a refusal is a `TemporalRefusedError` saying which setting to fix. */
export async function connectWorker(target: TemporalTarget): Promise<NativeConnection> {
  try {
    return await NativeConnection.connect(connectionOptions(target));
  } catch (error) {
    throw new TemporalRefusedError(refusalMessage(error, target));
  }
}
