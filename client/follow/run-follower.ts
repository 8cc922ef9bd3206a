import { Client, Connection } from '@temporalio/client';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SessionRunResult } from '../../core/runs/run.js';
import type { sessionWorkflow } from '../../workflows/index.js';
import { InputError } from '../input-error.js';
import { isTransportError, transportReason } from '../temporal/transport-error.js';
import { connectionOptions } from '../../worker/connection/connection-options.js';
import type { TemporalTarget } from '../../worker/connection/target.js';

export const RECONNECT_ENV = 'LOOM_FOLLOW_RECONNECT_MS';
/** Long enough for a dev server restart or a network blip, short enough that a script is not stuck. */
const DEFAULT_RECONNECT_MS = 120_000;
const FIRST_RETRY_MS = 200;
const MAX_RETRY_MS = 2_000;
const PROBE_TIMEOUT_MS = 5_000;
/** A wait for the result that stayed open this long was following fine: a failure after it starts a new outage. */
const HEALTHY_MS = 10_000;

/**
 * gRPC's own reconnect backoff grows to two minutes, so a client would notice a returned server
 * long after it is back; reconnecting every two seconds at most costs nothing while it is down.
 */
const CHANNEL_ARGS = { 'grpc.initial_reconnect_backoff_ms': 500, 'grpc.max_reconnect_backoff_ms': 2_000 };

export type Followed =
  | { kind: 'result'; result: SessionRunResult }
  /** The server's answer: the run failed, was cancelled or terminated, or is unknown. */
  | { kind: 'error'; error: unknown }
  /** The server stayed unreachable past the limit; the run may well be going on. */
  | { kind: 'unreachable'; lostForMs: number; reason: string };

/** How long following a run waits for an unreachable Temporal server: `LOOM_FOLLOW_RECONNECT_MS`, else 2 minutes. */
export function reconnectLimit(env: NodeJS.ProcessEnv): number {
  const raw = env[RECONNECT_ENV]?.trim();
  if (!raw) return DEFAULT_RECONNECT_MS;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms < 0)
    throw new InputError(`${RECONNECT_ENV}=${JSON.stringify(raw)}: expected whole milliseconds.`);
  return ms;
}

/**
 * Waits for a run's outcome across outages of the Temporal server. It has a connection of its own
 * without the client's automatic retries: those retry each call for about 20 s and then fail the
 * wait as if the run had failed, and they would hide an outage from the person waiting. Here a
 * lost connection is said once, retried with backoff, and said again when the server is back;
 * only a server gone for longer than the limit ends the wait.
 */
export class RunFollower {
  private readonly connection: Connection;
  private readonly client: Client;
  /** When the current outage began; cleared once the result comes, or a wait for it has gone on fine for a while. */
  private lostAt: number | undefined;
  private down = false;
  /** When the server last came back after an outage. */
  backAt = 0;
  /** Ends the waits when the command stops following (a detach), so nothing keeps probing. */
  private readonly closing = new AbortController();

  constructor(
    private readonly target: { temporal: TemporalTarget; workflowId: string; runId?: string },
    private readonly options: { limitMs: number; report: (line: string) => void },
  ) {
    this.connection = Connection.lazy({
      ...connectionOptions(target.temporal),
      interceptors: [],
      channelArgs: CHANNEL_ARGS,
    });
    this.client = new Client({ connection: this.connection, namespace: target.temporal.namespace });
  }

  /** Whether the server is unreachable right now (as far as this follower has seen). */
  get unreachable(): boolean {
    return this.down;
  }

  async result(): Promise<Followed> {
    const handle = this.client.workflow.getHandle<typeof sessionWorkflow>(this.target.workflowId, this.target.runId);
    let delay = FIRST_RETRY_MS;
    for (;;) {
      const began = Date.now();
      try {
        const result = await handle.result();
        this.lostAt = undefined;
        return { kind: 'result', result };
      } catch (error) {
        if (!isTransportError(error) || this.closing.signal.aborted) return { kind: 'error', error };
        if (Date.now() - began > HEALTHY_MS) {
          this.lostAt = undefined;
          delay = FIRST_RETRY_MS;
        }
        this.lostAt ??= Date.now();
        if (!(await this.untilReachable(transportReason(error)))) {
          return { kind: 'unreachable', lostForMs: Date.now() - this.lostAt, reason: transportReason(error) };
        }
      }
      // A dropped call on a live server (a proxy resetting streams, say) is retried, not in a tight loop.
      await this.pause(delay);
      delay = Math.min(delay * 2, MAX_RETRY_MS);
    }
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.connection.close().catch(() => undefined);
  }

  /** Probes the server until it answers (true) or the outage has lasted past the limit (false). */
  private async untilReachable(reason: string): Promise<boolean> {
    let wait = FIRST_RETRY_MS;
    for (;;) {
      if (this.closing.signal.aborted) return false;
      const left = this.lostAt! + this.options.limitMs - Date.now();
      if (await this.answers(Math.max(Math.min(PROBE_TIMEOUT_MS, left), 100))) {
        if (this.down) {
          this.down = false;
          this.backAt = Date.now();
          this.options.report(
            `Reconnected to the Temporal server at ${this.target.temporal.address} after ${formatDuration(this.backAt - this.lostAt!)}.`,
          );
        }
        return true;
      }
      if (!this.down) {
        this.down = true;
        this.options.report(
          `Lost the Temporal server at ${this.target.temporal.address} (${reason}); reconnecting for up to ${formatDuration(this.options.limitMs)} …`,
        );
      }
      if (Date.now() - this.lostAt! >= this.options.limitMs) return false;
      await this.pause(Math.min(wait, Math.max(this.lostAt! + this.options.limitMs - Date.now(), 0)));
      wait = Math.min(wait * 2, MAX_RETRY_MS);
    }
  }

  private async pause(ms: number): Promise<void> {
    await sleep(ms, undefined, { signal: this.closing.signal }).catch(() => undefined);
  }

  /** Whether the server answers a cheap call within `timeoutMs`; any answer, even an error, counts. */
  private async answers(timeoutMs: number): Promise<boolean> {
    try {
      await this.connection.withDeadline(Date.now() + timeoutMs, () =>
        this.connection.workflowService.getSystemInfo({}),
      );
      return true;
    } catch (error) {
      return !isTransportError(error);
    }
  }
}

/** `45s`, `2m`, `2m 30s`: how long an outage lasted, for people. */
export function formatDuration(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  return seconds % 60 ? `${minutes}m ${seconds % 60}s` : `${minutes}m`;
}
