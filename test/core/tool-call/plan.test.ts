import { describe, expect, it } from 'vitest';
import { fromConfig } from '../../../core/rules/permission.js';
import { planToolCall, refuseOversized, type PlanContext } from '../../../core/tool-call/plan.js';

const context: PlanContext = {
  offered: ['read', 'write', 'bash', 'task', 'batch'],
  agentRules: fromConfig({ edit: 'deny' }),
  directory: '/project',
  digest: (input) => `digest:${JSON.stringify(input).length}`,
};
const call = (tool: string, input: unknown) => ({ partId: 'prt_1', callId: 'call_1', tool, input });

describe('planToolCall', () => {
  it('keeps what the loop needs of a write, never the content', () => {
    const check = planToolCall(call('write', { filePath: 'src/a.ts', content: 'x'.repeat(100_000) }), context);
    expect(check.ok).toBe(true);
    expect(check.plan).toMatchObject({
      tool: 'write',
      title: 'write · src/a.ts',
      permissions: [{ permission: 'edit', patterns: ['src/a.ts'] }],
    });
    expect(JSON.stringify(check.plan).length).toBeLessThan(500);
  });

  it("keeps a task call's routing and a preview of its prompt", () => {
    const check = planToolCall(
      call('task', { description: 'Look', prompt: 'p'.repeat(5_000), subagent_type: 'explore', task_id: 'ses_1' }),
      context,
    );
    expect(check.plan.task).toMatchObject({ description: 'Look', subagent_type: 'explore', session_id: 'ses_1' });
    expect(check.plan.task!.promptPreview.length).toBeLessThanOrEqual(1000);
  });

  it('lists every agent a batch call names, and counts its tasks', () => {
    const tasks = [
      { description: 'a', prompt: 'a' },
      { description: 'b', prompt: 'b', agent: 'explore' },
    ];
    expect(planToolCall(call('batch', { tasks, agent: 'general' }), context).plan.batch).toMatchObject({
      taskCount: 2,
      agents: ['general', 'explore'],
    });
  });

  it('gives a wrong call the error the model sees, with a bounded name', () => {
    const unknown = planToolCall(call('x'.repeat(5_000), {}), context);
    expect(unknown).toMatchObject({ ok: false, plan: { rejected: true } });
    expect(unknown.plan.tool.length).toBeLessThanOrEqual(100);
    expect(planToolCall(call('edit', { filePath: 'a', oldString: 'a', newString: 'b' }), context)).toMatchObject({
      ok: false,
      error: expect.stringContaining('deny'),
    });
  });

  it('refuses a call whose command line is too long to carry, and says what to do instead', () => {
    const check = refuseOversized(
      planToolCall(call('bash', { command: `echo ${'y'.repeat(20_000)}`, description: 'Echo' }), context),
    );
    expect(check).toMatchObject({ ok: false, plan: { rejected: true, permissions: [] } });
    expect(!check.ok && check.error).toMatch(/The command line is 20 KiB long; Loom checks at most 16 KiB.*write tool/);
    expect(refuseOversized(planToolCall(call('bash', { command: 'ls', description: 'List' }), context)).ok).toBe(true);
  });
});
