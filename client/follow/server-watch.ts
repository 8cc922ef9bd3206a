import { createConnection } from 'node:net';
import { isTransportError } from '../temporal/transport-error.js';
import type { TemporalAccess } from '../temporal/connect.js';

const EVERY_MS = 1_000;
const PROBE_MS = 2_000;

/**
 * Calls `lost` when the Temporal server stops answering (its port refuses connections, as after
 * `loom down`, or, when the port does not say, two looks in a row fail on the wire) and `back`
 * when it answers again. Returns a function that stops watching.
 */
export function watchServer(access: TemporalAccess, on: { lost: () => void; back: () => void }): () => void {
  let failures = 0;
  let down = false;
  let looking = false;
  const timer = setInterval(() => {
    if (looking) return;
    looking = true;
    void answers(access)
      .then((answer) => {
        failures = answer === 'yes' ? 0 : answer === 'no' ? Infinity : failures + 1;
        if (!down && failures >= 2) {
          down = true;
          on.lost();
        } else if (down && failures === 0) {
          down = false;
          on.back();
        }
      })
      .finally(() => (looking = false));
  }, EVERY_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** `no` when nothing listens at the address; `failed` when a call did not get through. */
async function answers(access: TemporalAccess): Promise<'yes' | 'no' | 'failed'> {
  const port = await portState(access.address);
  if (port === 'refused') return 'no';
  if (port === 'open') return 'yes';
  try {
    await access.connection.withDeadline(Date.now() + PROBE_MS, () => access.client.workflowService.getSystemInfo({}));
    return 'yes';
  } catch (error) {
    return isTransportError(error) ? 'failed' : 'yes';
  }
}

/** Whether the address accepts TCP connections, refuses them (nothing listens), or does not say in time. */
export function portState(address: string): Promise<'open' | 'refused' | 'unknown'> {
  const colon = address.lastIndexOf(':');
  return new Promise((resolve) => {
    const socket = createConnection({ host: address.slice(0, colon), port: Number(address.slice(colon + 1)) });
    const done = (state: 'open' | 'refused' | 'unknown') => {
      socket.destroy();
      resolve(state);
    };
    socket.setTimeout(PROBE_MS, () => done('unknown'));
    socket.once('connect', () => done('open'));
    socket.once('error', (error: NodeJS.ErrnoException) => done(error.code === 'ECONNREFUSED' ? 'refused' : 'unknown'));
  });
}
