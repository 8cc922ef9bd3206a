import { describe, expect, it } from 'vitest';
import type { SessionStore } from '../../activities/store/store.js';

const KEY = 'openai|key:0123456789ab|https://api.openai.com/v1';

/** Provider rate limits: one row per gate, reservations atomic across every store instance. */
export function describeRateLimitContract(name: string, openStore: () => Promise<SessionStore>): void {
  describe(`${name} rate limits`, () => {
    it('spaces reservations by the interval, starting now on a new gate', async () => {
      const store = await openStore();
      expect(await store.rateGate(KEY)).toBeUndefined();
      expect(await store.reserveRateSlot(KEY, 1_000, 100, 60_000)).toBe(1_000);
      expect(await store.reserveRateSlot(KEY, 1_000, 100, 60_000)).toBe(1_100);
      // Later than the next free slot: the slot is now.
      expect(await store.reserveRateSlot(KEY, 5_000, 100, 60_000)).toBe(5_000);
      expect(await store.rateGate(KEY)).toEqual({ nextAt: 5_100, blockedUntil: 0, tokensUntil: 0, strikes: 0 });
      expect(await store.reserveRateSlot(`${KEY}|model:gpt-4o`, 5_000, 100, 60_000)).toBe(5_000);
    });

    it('never gives two callers the same slot, across store instances', async () => {
      const stores = [await openStore(), await openStore(), await openStore()];
      const now = 10_000;
      const slots = await Promise.all(
        Array.from({ length: 60 }, (_, i) => stores[i % 3].reserveRateSlot(KEY, now, 50, 60_000)),
      );
      const sorted = (slots as number[]).toSorted((a, b) => a - b);
      expect(sorted).toEqual(Array.from({ length: 60 }, (_, i) => now + i * 50));
    });

    it('reserves nothing past the horizon, and says how long to wait', async () => {
      const store = await openStore();
      for (let i = 0; i < 10; i++) await store.reserveRateSlot(KEY, 0, 1_000, 5_000);
      // Slots 0..5 000 were handed out; the next would be 6 000, past 0 + 5 000.
      expect((await store.rateGate(KEY))?.nextAt).toBe(6_000);
      expect(await store.reserveRateSlot(KEY, 0, 1_000, 5_000)).toBeUndefined();
      expect((await store.rateGate(KEY))?.nextAt).toBe(6_000);
      expect(await store.reserveRateSlot(KEY, 1_000, 1_000, 5_000)).toBe(6_000);
    });

    it('holds every slot back until a block ends', async () => {
      const store = await openStore();
      expect(await store.blockRateGate(KEY, 1_000, 31_000)).toBe(31_000);
      // A shorter block does not shorten a longer one.
      expect(await store.blockRateGate(KEY, 1_000, 2_000)).toBe(31_000);
      expect(await store.reserveRateSlot(KEY, 1_000, 0, 60_000)).toBe(31_000);
      expect(await store.reserveRateSlot(KEY, 1_000, 0, 10_000)).toBeUndefined();
    });

    it('backs off 1 s, doubling per strike up to 60 s, with no new strike while a block holds', async () => {
      const store = await openStore();
      expect(await store.blockRateGate(KEY, 0)).toBe(1_000);
      expect(await store.blockRateGate(KEY, 500)).toBe(1_000);
      expect(await store.blockRateGate(KEY, 1_000)).toBe(3_000);
      expect(await store.blockRateGate(KEY, 3_000)).toBe(7_000);
      expect((await store.rateGate(KEY))?.strikes).toBe(3);
      let at = 7_000;
      for (let i = 0; i < 8; i++) at = await store.blockRateGate(KEY, at);
      expect(at - (await store.rateGate(KEY))!.blockedUntil).toBe(0);
      expect(await store.blockRateGate(KEY, at)).toBe(at + 60_000);
      await store.clearRateStrikes(KEY);
      expect(await store.blockRateGate(KEY, at + 60_000)).toBe(at + 61_000);
    });

    it('runs a token clock that holds requests back until it has caught up', async () => {
      const store = await openStore();
      await store.spendRateTokens(KEY, 1_000, 2_500);
      await store.spendRateTokens(KEY, 1_200, 500);
      expect((await store.rateGate(KEY))?.tokensUntil).toBe(4_000);
      expect(await store.reserveRateSlot(KEY, 1_300, 10, 60_000)).toBe(4_000);
      // Behind now, the clock starts from now.
      await store.spendRateTokens(KEY, 9_000, 100);
      expect((await store.rateGate(KEY))?.tokensUntil).toBe(9_100);
    });
  });
}
