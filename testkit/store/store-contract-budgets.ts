import { describe, expect, it } from 'vitest';
import type { Message } from '../../core/records/message.js';
import type { SessionStore } from '../../activities/store/store.js';
import { batch, session } from './store-records.js';

/** An answer of `tokens` input and 10 output tokens, costing `cost`. */
function answer(id: string, sessionID: string, tokens: number, cost: number): Message {
  return {
    id,
    sessionID,
    role: 'assistant',
    parentID: 'msg_user',
    agent: 'build',
    model: 'openai/gpt-4o',
    step: 1,
    time: { created: 1 },
    tokens: { input: tokens, output: 10, reasoning: 0, cache: { read: 0, write: 0 } },
    cost,
  };
}

/** Budgets, and the spend of trees and batches they are checked against. */
export function describeBudgetContract(name: string, openStore: () => Promise<SessionStore>): void {
  describe(`${name} budgets`, () => {
    it('keeps a budget per session or batch, replaces it, and removes it when emptied or with its session', async () => {
      const store = await openStore();
      await store.saveSession(session('ses_root', 1));
      expect(await store.budgetOf('ses_root')).toBeUndefined();
      await store.setBudget('ses_root', { tokens: 1000 });
      await store.setBudget('bat_1', { cost: 2.5 });
      expect(await store.budgetOf('ses_root')).toEqual({ tokens: 1000 });
      await store.setBudget('ses_root', { tokens: 2000, cost: 0.75 });
      expect(await store.budgetOf('ses_root')).toEqual({ tokens: 2000, cost: 0.75 });
      // A second process sees it at once: the workers of a tree share it.
      expect(await (await openStore()).budgetOf('bat_1')).toEqual({ cost: 2.5 });
      await store.setBudget('bat_1', {});
      expect(await store.budgetOf('bat_1')).toBeUndefined();
      await store.removeSession('ses_root');
      expect(await store.budgetOf('ses_root')).toBeUndefined();
    });

    it("sums a subtree's answers (not user messages, not other trees), each message once however often saved", async () => {
      const store = await openStore();
      await store.saveSession(session('ses_root', 1));
      await store.saveSession(session('ses_child', 2, 'ses_root'));
      await store.saveSession(session('ses_grandchild', 3, 'ses_child'));
      await store.saveSession(session('ses_other', 4));
      await store.saveMessage({
        id: 'msg_user',
        sessionID: 'ses_root',
        role: 'user',
        agent: 'build',
        model: 'openai/gpt-4o',
        time: { created: 1 },
      });
      await store.saveMessage(answer('msg_a', 'ses_root', 100, 0.001));
      // A retried step rewrites its message: counted once, with its last numbers.
      await store.saveMessage(answer('msg_b', 'ses_child', 50, 0.0005));
      await store.saveMessage(answer('msg_b', 'ses_child', 200, 0.002));
      await store.saveMessage(answer('msg_c', 'ses_grandchild', 300, 0.003));
      await store.saveMessage(answer('msg_d', 'ses_other', 5000, 1));

      const tree = await store.subtreeUsage('ses_root');
      expect(tree.tokens).toEqual({ input: 600, output: 30, reasoning: 0, cache: { read: 0, write: 0 } });
      expect(tree.cost).toBeCloseTo(0.006, 9);
      expect((await store.subtreeUsage('ses_child')).tokens.input).toBe(500);
      expect((await store.subtreeUsage('ses_missing')).tokens.input).toBe(0);
    });

    it("sums a batch's task trees, and finds the batches whose budgets cover a task's session", async () => {
      const store = await openStore();
      for (const [id, parent] of [['ses_t0'], ['ses_t1'], ['ses_t1_child', 'ses_t1'], ['ses_alone']])
        await store.saveSession(session(id!, 1, parent));
      await store.saveMessage(answer('msg_0', 'ses_t0', 100, 0.01));
      await store.saveMessage(answer('msg_1', 'ses_t1_child', 200, 0.02));
      await store.saveMessage(answer('msg_2', 'ses_alone', 400, 0.04));
      await store.createBatch(batch('bat_1', 1), [
        { description: 'a', prompt: 'a' },
        { description: 'b', prompt: 'b' },
      ]);
      await store.saveBatchOutcomes('bat_1', [
        { index: 0, status: 'completed', attempts: 1, sessionId: 'ses_t0' },
        { index: 1, status: 'running', attempts: 1, sessionId: 'ses_t1' },
      ]);
      expect((await store.batchUsage('bat_1')).tokens.input).toBe(300);
      expect(await store.batchBudgetsOf('ses_t1')).toEqual([]);
      await store.setBudget('bat_1', { tokens: 5000 });
      expect(await store.batchBudgetsOf('ses_t1')).toEqual([{ batchID: 'bat_1', budget: { tokens: 5000 } }]);
      expect(await store.batchBudgetsOf('ses_alone')).toEqual([]);
    });
  });
}
