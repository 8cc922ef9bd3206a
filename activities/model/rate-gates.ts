import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RateLimitConfig } from '../../core/config/config.js';
import type { RateLimits } from '../store/rate-limits.js';

/** Below the configured rates, so that network jitter never pushes a minute over. */
export const HEADROOM = 1.02;
/** Slots are handed out at most this far ahead; a caller further back waits and asks again. */
export const HORIZON_MS = 60_000;

/** Waiting for a rate limit would take past the call's bound: Temporal's retry takes over. */
export class RateLimitWaitError extends Error {
  override name = 'RateLimitWaitError';

  constructor(
    readonly gate: string,
    readonly until: number,
  ) {
    super(`Rate limit of ${gate} holds requests back until ${new Date(until).toISOString()}`);
  }
}

interface Gate {
  key: string;
  /** Milliseconds between requests (0: no configured rpm, only blocks). */
  intervalMs: number;
  /** Milliseconds of the token clock per token (0: no configured tpm). */
  msPerToken: number;
}

/**
 * The gates one model's requests pass, in the store: the provider's key (its `limit`, and every
 * 429 on the key), then the model's own `limit` if it has one. Keyed by provider id, a short hash
 * of the API key (the key itself is never stored) and base URL, so sessions share a gate exactly
 * when they share a key.
 */
export class RateGates {
  private readonly gates: Gate[];

  constructor(
    private readonly store: RateLimits,
    where: { providerID: string; modelID: string; apiKey?: string; baseURL?: string },
    limits: { provider?: RateLimitConfig; model?: RateLimitConfig },
  ) {
    const key = `${where.providerID}|${keyHash(where.apiKey)}|${where.baseURL ?? ''}`;
    this.gates = [gate(key, limits.provider)];
    if (limits.model?.rpm || limits.model?.tpm) this.gates.push(gate(`${key}|${where.modelID}`, limits.model));
  }

  /** The provider key's gate, which 429s block. */
  get key(): string {
    return this.gates[0].key;
  }

  /**
   * Waits until every gate lets a request go, or throws `RateLimitWaitError` when that would be
   * after `deadline`. Returns whether the key has strikes to clear once a request succeeds.
   */
  async pass(signal: AbortSignal | undefined, deadline: number): Promise<boolean> {
    let strikes = false;
    for (const gate of this.gates) if (await this.passOne(gate, signal, deadline)) strikes = true;
    return strikes;
  }

  /** Blocks the key for everyone: until `until`, or for the shared backoff. Returns when the block ends. */
  block(until?: number): Promise<number> {
    return this.store.blockRateGate(this.key, Date.now(), until);
  }

  clearStrikes(): Promise<void> {
    return this.store.clearRateStrikes(this.key);
  }

  /** Moves the token clocks on by an answer's tokens. */
  async spend(tokens: number): Promise<void> {
    const now = Date.now();
    for (const gate of this.gates)
      if (gate.msPerToken > 0) await this.store.spendRateTokens(gate.key, now, tokens * gate.msPerToken);
  }

  private async passOne(gate: Gate, signal: AbortSignal | undefined, deadline: number): Promise<boolean> {
    for (;;) {
      const now = Date.now();
      const state = gate.intervalMs > 0 ? undefined : await this.store.rateGate(gate.key);
      const slot =
        gate.intervalMs > 0
          ? await this.store.reserveRateSlot(gate.key, now, gate.intervalMs, HORIZON_MS)
          : Math.max(now, state?.blockedUntil ?? 0, gate.msPerToken > 0 ? (state?.tokensUntil ?? 0) : 0);
      if (slot === undefined) {
        // Too far back to reserve: wait until the free slot comes within the horizon.
        const free = await this.free(gate);
        if (free > deadline) throw new RateLimitWaitError(gate.key, free);
        await wait(Math.min(HORIZON_MS, Math.max(1_000, free - HORIZON_MS - Date.now())), signal);
        continue;
      }
      if (slot > deadline) throw new RateLimitWaitError(gate.key, slot);
      if (slot <= now) return (state?.strikes ?? 0) > 0;
      await wait(Math.min(slot - now, HORIZON_MS), signal);
      // A block that began while this caller waited voids its slot: it takes one after the block.
      const after = await this.store.rateGate(gate.key);
      if (after && after.blockedUntil > Date.now()) continue;
      if (gate.intervalMs === 0 && slot > Date.now()) continue;
      // Woken late (a busy event loop): sent now, it would crowd the requests after it; it takes a new slot.
      if (gate.intervalMs > 0 && Date.now() - slot > gate.intervalMs / 2) continue;
      return (after?.strikes ?? 0) > 0;
    }
  }

  private async free(gate: Gate): Promise<number> {
    const state = await this.store.rateGate(gate.key);
    return state ? Math.max(state.nextAt, state.blockedUntil, state.tokensUntil) : Date.now();
  }
}

function gate(key: string, limit: RateLimitConfig | undefined): Gate {
  return {
    key,
    intervalMs: limit?.rpm ? (60_000 / limit.rpm) * HEADROOM : 0,
    msPerToken: limit?.tpm ? (60_000 / limit.tpm) * HEADROOM : 0,
  };
}

function keyHash(apiKey: string | undefined): string {
  return apiKey ? createHash('sha256').update(apiKey).digest('hex').slice(0, 12) : 'nokey';
}

async function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (ms <= 0) return;
  try {
    await sleep(ms, undefined, { signal });
  } catch (error) {
    throw signal?.aborted ? signal.reason : error;
  }
}
