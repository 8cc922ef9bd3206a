import { describe, expect, it } from 'vitest';
import type { AssistantMessage } from '../../core/records/message.js';
import type { SessionStore } from '../../activities/store/store.js';
import { batch, request, session } from './store-records.js';

function assistant(id: string, fields: Partial<AssistantMessage> = {}): AssistantMessage {
  return {
    id,
    sessionID: 'ses_a',
    role: 'assistant',
    agent: 'build',
    model: 'openai/gpt-4o',
    parentID: 'msg_0',
    step: 1,
    time: { created: 1 },
    tokens: { input: 10, output: 2, reasoning: 1, cache: { read: 3, write: 0 } },
    cost: 0.5,
    ...fields,
  };
}

/** Batches, prompts, todos, permissions and the JSON queries: the rest of the store contract. */
export function describeRecordsContract(name: string, openStore: () => Promise<SessionStore>): void {
  describe(`${name} steps, usage and compaction`, () => {
    it('sums the tokens and cost of assistant messages, and finds the last finished step', async () => {
      const store = await openStore();
      expect(await store.usage('ses_a')).toEqual({
        tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
        cost: 0,
      });
      await store.saveMessage(assistant('msg_1', { finish: 'tool-calls' }));
      await store.saveMessage(assistant('msg_2', { finish: 'stop', summary: true }));
      await store.saveMessage(assistant('msg_3'));
      expect(await store.usage('ses_a')).toEqual({
        tokens: { input: 30, output: 6, reasoning: 3, cache: { read: 9, write: 0 } },
        cost: 1.5,
      });
      expect((await store.lastFinishedStep('ses_a'))?.id).toBe('msg_1');
      expect(await store.lastFinishedStep('ses_b')).toBeUndefined();
    });

    it('starts the model view at the last compaction whose summary finished without error', async () => {
      const store = await openStore();
      expect(await store.compactionStart('ses_a')).toBeUndefined();
      await store.savePart({ id: 'prt_1', sessionID: 'ses_a', messageID: 'msg_1', type: 'compaction', auto: true });
      await store.saveMessage(assistant('msg_2', { finish: 'stop', summary: true }));
      await store.savePart({ id: 'prt_3', sessionID: 'ses_a', messageID: 'msg_3', type: 'compaction', auto: false });
      expect(await store.compactionStart('ses_a')).toBe('msg_1');
      await store.saveMessage(
        assistant('msg_4', { finish: 'error', summary: true, error: { name: 'APIError', message: 'boom' } }),
      );
      expect(await store.compactionStart('ses_a')).toBe('msg_1');
      await store.saveMessage(assistant('msg_4', { finish: 'stop', summary: true }));
      expect(await store.compactionStart('ses_a')).toBe('msg_3');
    });
  });

  describe(`${name} batches`, () => {
    it('stores a batch with its pending tasks, pages through them, and counts outcomes', async () => {
      const store = await openStore();
      const tasks = [
        { description: 'one', prompt: 'do one' },
        { description: 'two', prompt: 'do two', session_id: 'ses_old' },
        { description: 'three', prompt: 'do three' },
      ];
      await store.createBatch(batch('bat_1', 1), tasks);
      await store.saveBatch(batch('bat_2', 2));
      expect((await store.listBatches()).map((b) => b.id)).toEqual(['bat_2', 'bat_1']);
      expect(await store.getBatch('bat_1')).toEqual(batch('bat_1', 1));
      expect(await store.batchTask('bat_1', 1)).toEqual({
        task: tasks[1],
        outcome: { index: 1, status: 'pending', attempts: 0, sessionId: 'ses_old' },
      });
      expect(await store.batchTask('bat_1', 9)).toBeUndefined();

      await store.saveBatchOutcomes('bat_1', [
        { index: 0, status: 'completed', attempts: 1, sessionId: 'ses_t0', text: 'done' },
        { index: 2, status: 'failed', attempts: 2, error: 'no' },
      ]);
      expect(await store.batchCounts('bat_1')).toEqual({
        pending: 1,
        running: 0,
        completed: 1,
        failed: 1,
        cancelled: 0,
      });
      const page = await store.batchTasks('bat_1', { from: 1, limit: 1 });
      expect(page.map((t) => t.task.description)).toEqual(['two']);
      expect((await store.batchTasks('bat_1')).map((t) => t.outcome.status)).toEqual([
        'completed',
        'pending',
        'failed',
      ]);
    });

    it('stores nothing of a batch whose tasks are invalid', async () => {
      const store = await openStore();
      await expect(store.createBatch(batch('bat_1', 1), [{ description: '', prompt: 'x' }])).rejects.toThrow();
      expect(await store.getBatch('bat_1')).toBeUndefined();
    });
  });

  describe(`${name} prompts, todos and file reads`, () => {
    it('stores prompts (sending one again changes nothing), todos and file read times', async () => {
      const store = await openStore();
      const prompt = { id: 'prm_1', sessionID: 'ses_a', text: 'hello', time: { created: 1_700_000_000_123 } };
      await store.savePrompt(prompt);
      await store.savePrompt(prompt);
      await store.savePrompt({ id: 'prm_2', text: 'shared', time: { created: 2 } });
      expect(await store.getPrompt('prm_1')).toEqual(prompt);
      expect(await store.getPrompt('prm_2')).toEqual({ id: 'prm_2', text: 'shared', time: { created: 2 } });
      expect(await store.getPrompt('prm_nope')).toBeUndefined();

      expect(await store.todos('ses_a')).toEqual([]);
      const todos = [{ id: 't1', content: 'write tests', status: 'pending' as const, priority: 'high' as const }];
      await store.saveTodos('ses_a', todos);
      expect(await store.todos('ses_a')).toEqual(todos);

      await store.recordFileRead('ses_a', '/project/a.ts', 1_700_000_000_123.5);
      await store.recordFileRead('ses_a', '/project/a.ts', 1_700_000_000_456.25);
      expect(await store.fileReadMtime('ses_a', '/project/a.ts')).toBe(1_700_000_000_456.25);
      expect(await store.fileReadMtime('ses_b', '/project/a.ts')).toBeUndefined();
    });
  });

  describe(`${name} live counts`, () => {
    it('counts waiting requests, busy subagents and the tasks of running batches only', async () => {
      const store = await openStore();
      expect(await store.liveCounts()).toEqual({
        permissionsWaiting: 0,
        subagentsRunning: 0,
        batchTasks: { pending: 0, running: 0, completed: 0, failed: 0, cancelled: 0 },
      });
      await store.saveSession({ ...session('ses_root', 1), status: 'busy' });
      await store.saveSession({ ...session('ses_child', 2, 'ses_root'), status: 'busy' });
      await store.saveSession({ ...session('ses_done', 3, 'ses_root'), status: 'idle' });
      await store.savePermissionRequest(request('per_1', 'pending'));
      await store.savePermissionRequest({
        ...request('per_2', 'approved'),
        reply: { reply: 'once' },
        time: { created: 1, replied: 2 },
      });
      await store.createBatch(batch('bat_run', 1), [
        { description: 'a', prompt: 'a' },
        { description: 'b', prompt: 'b' },
      ]);
      await store.saveBatchOutcomes('bat_run', [{ index: 0, status: 'running', attempts: 1, sessionId: 'ses_t0' }]);
      await store.createBatch({ ...batch('bat_over', 2), status: 'completed' }, [{ description: 'c', prompt: 'c' }]);
      await store.saveBatchOutcomes('bat_over', [
        { index: 0, status: 'completed', attempts: 1, sessionId: 'ses_t1', text: 'done' },
      ]);
      expect(await store.liveCounts()).toEqual({
        permissionsWaiting: 1,
        subagentsRunning: 1,
        batchTasks: { pending: 1, running: 1, completed: 0, failed: 0, cancelled: 0 },
      });
    });
  });

  describe(`${name} permissions`, () => {
    it('filters requests by status and tree, oldest first, and keeps approved rules in the order granted', async () => {
      const store = await openStore();
      await store.savePermissionRequest(request('per_2', 'pending'));
      await store.savePermissionRequest(request('per_1', 'pending'));
      await store.savePermissionRequest(request('per_3', 'pending', 'ses_other'));
      await store.savePermissionRequest({
        ...request('per_1', 'approved'),
        reply: { reply: 'once' },
        time: { created: 1, replied: 2 },
      });
      expect((await store.permissionRequests()).map((r) => r.id)).toEqual(['per_1', 'per_2', 'per_3']);
      expect((await store.permissionRequests({ status: 'pending' })).map((r) => r.id)).toEqual(['per_2', 'per_3']);
      expect((await store.permissionRequests({ status: 'pending', rootID: 'ses_root' })).map((r) => r.id)).toEqual([
        'per_2',
      ]);
      expect((await store.getPermissionRequest('per_1'))?.status).toBe('approved');

      await store.addApprovedRules('ses_root', [{ permission: 'bash', pattern: 'npm *', action: 'allow' }]);
      await store.addApprovedRules('ses_root', [
        { permission: 'edit', pattern: 'src/*', action: 'allow' },
        { permission: 'bash', pattern: 'npm *', action: 'allow' },
      ]);
      expect(await store.approvedRules('ses_root')).toEqual([
        { permission: 'bash', pattern: 'npm *', action: 'allow' },
        { permission: 'edit', pattern: 'src/*', action: 'allow' },
      ]);
      expect(await store.approvedRules('ses_other')).toEqual([]);
    });
  });
}
