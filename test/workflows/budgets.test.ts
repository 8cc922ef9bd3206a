import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { totalTokens } from '../../core/records/tokens.js';
import type { ToolPart } from '../../core/records/part.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import type { ScriptRule } from '../../testkit/model/scripted-model-script.js';

let env: LoomTestEnv;

/** Every call costs 1,000 tokens: 900 in, 100 out. */
const USAGE = { prompt_tokens: 900, completion_tokens: 100 };

/** Another command each time: the same call three times in a row would ask a person about a doom loop. */
const again = (request: { index: number }) => ({
  usage: USAGE,
  toolCalls: [{ name: 'bash', args: { command: `echo step ${request.index}`, description: 'Again' } }],
});

beforeAll(async () => {
  env = await createLoomTestEnv({
    config: {
      // The budget of every new root session, and of each session the frugal agent runs.
      limits: { max_tokens: 1_000_000 },
      agent: {
        general: { permission: { task: 'allow' } },
        frugal: { mode: 'subagent', description: 'Spends little', limits: { max_tokens: 2_000 } },
      },
    },
    // $10 in and $30 out per million tokens: each call costs $0.012.
    providers: (url) => ({
      priced: { options: { baseURL: url, apiKey: 'test' }, models: { m: { cost: { input: 10, output: 30 } } } },
    }),
  });
  await env.worker();
});
afterAll(() => env?.close());

/** A root that hands the work to two subagents, which never stop calling tools. */
function loopingTree(): ScriptRule[] {
  return [
    {
      name: 'delegate',
      when: { lastUser: /^Split the work/, lastRole: 'user' },
      reply: {
        usage: USAGE,
        toolCalls: ['One', 'Two'].map((half) => ({
          name: 'task',
          args: { description: `Half ${half}`, prompt: `Loop on half ${half}.`, subagent_type: 'general' },
        })),
      },
    },
    {
      name: 'after-children',
      when: { lastUser: /^Split the work/, lastRole: 'tool' },
      reply: { usage: USAGE, text: 'ok' },
    },
    {
      name: 'loop',
      when: { lastUser: /^Loop on half/ },
      reply: again,
    },
  ];
}

/** The run's failure as the workflow ended it: its type and message. */
async function failureOf(result: () => Promise<unknown>): Promise<{ type?: string; message: string }> {
  const error = (await result().then(
    () => undefined,
    (reason: unknown) => reason,
  )) as { cause?: { type?: string; message: string } } | undefined;
  expect(error?.cause, 'the run should have failed').toBeDefined();
  return error!.cause!;
}

async function treeSpend(sessionId: string) {
  const usage = await env.store.subtreeUsage(sessionId);
  return { tokens: totalTokens(usage.tokens), cost: usage.cost };
}

describe('budgets of a tree of agents', () => {
  it('stops a looping tree at a step boundary when its token budget is reached, near the budget', async () => {
    {
      env.model.setScript(loopingTree());
      const { sessionId, result } = await env.start('Split the work in two.', { budget: { tokens: 20_000 } });
      expect(await failureOf(result)).toMatchObject({ type: 'BudgetExceeded' });

      const spent = await treeSpend(sessionId);
      expect(spent.tokens).toBeGreaterThanOrEqual(20_000);
      // Each of the three runs may finish the call it had started when the budget was reached.
      expect(spent.tokens).toBeLessThanOrEqual(23_000);
      expect(env.model.requests.filter((r) => r.rule === 'delegate' || r.rule === 'loop').length * 1000).toBe(
        spent.tokens,
      );

      const root = (await env.store.getSession(sessionId))!;
      expect(root.status).toBe('failed');
      expect(root.error?.name).toBe('BudgetExceeded');
      expect(root.error?.message).toMatch(
        new RegExp(
          `token budget of session ${sessionId} and its subagents is reached \\(2\\d,\\d{3} tokens spent of 20,000\\)`,
        ),
      );
      expect(root.error?.message).toContain(`loom resume ${sessionId} --max-tokens 40000`);

      // The subagents stopped for the same reason, and the parent's task calls say so with their ids.
      const children = await env.store.children(sessionId);
      expect(children).toHaveLength(2);
      for (const child of children) expect(child.error?.name).toBe('BudgetExceeded');
      const taskParts = (await env.store.messages(sessionId))
        .flatMap((m) => m.parts)
        .filter((p): p is ToolPart => p.type === 'tool' && p.tool === 'task');
      for (const part of taskParts) {
        expect(part.state.status).toBe('error');
        if (part.state.status === 'error')
          expect(part.state.error).toMatch(/token budget .* is reached.*session_id ses_/s);
      }
      expect(await env.store.budgetOf(sessionId)).toEqual({ tokens: 20_000 });
      await env.checkReplay(sessionId, 'budget-exceeded');
    }
  }, 120_000);

  it('stops at a cost budget with the configured prices', async () => {
    {
      env.model.setScript([
        {
          name: 'spend',
          reply: again,
        },
      ]);
      const { sessionId, result } = await env.start('Spend money.', { model: 'priced/m', budget: { cost: 0.05 } });
      expect((await failureOf(result)).message).toMatch(
        /cost budget of session .* is reached \(\$0\.06 spent of \$0\.05\)/,
      );
      // $0.012 a call: the fifth call passes $0.05, and no sixth starts.
      expect(env.model.requests.filter((r) => r.rule === 'spend')).toHaveLength(5);
      expect((await treeSpend(sessionId)).cost).toBeCloseTo(0.06, 6);
    }
  }, 60_000);

  it('refuses a cost budget for a model without prices, naming the model, before any model call', async () => {
    {
      env.model.setScript([{ name: 'never', reply: { text: 'should not be asked' } }]);
      const { sessionId, result } = await env.start('Spend money.', { budget: { cost: 1 } });
      expect((await failureOf(result)).message).toMatch(
        /Model scripted\/\S+ cannot be priced, so the cost budget of ses_\w+ cannot count what it spends: add its prices to loom\.json \(provider\.scripted\.models\.\S+\.cost/,
      );
      expect(env.model.requests.filter((r) => r.rule === 'never')).toHaveLength(0);
      expect((await env.store.getSession(sessionId))?.error?.name).toBe('ConfigError');
    }
  }, 60_000);

  it("gives new root sessions loom.json's limits, and a subagent its agent's, which stops it while the parent goes on", async () => {
    env.model.setScript([
      {
        name: 'hand-over',
        when: { lastUser: /^Hand it over/, lastRole: 'user' },
        reply: {
          usage: USAGE,
          toolCalls: [{ name: 'task', args: { description: 'Spend', prompt: 'Loop on it.', subagent_type: 'frugal' } }],
        },
      },
      {
        name: 'carry-on',
        when: { lastUser: /^Hand it over/, lastRole: 'tool' },
        reply: { usage: USAGE, text: 'Done without it.' },
      },
      { name: 'frugal-loop', when: { lastUser: /^Loop on it/ }, reply: again },
    ]);
    const { sessionId, result } = await env.start('Hand it over.');
    expect(await result()).toMatchObject({ status: 'completed', text: 'Done without it.' });
    expect(await env.store.budgetOf(sessionId)).toEqual({ tokens: 1_000_000 });
    const [child] = await env.store.children(sessionId);
    expect(await env.store.budgetOf(child.id)).toEqual({ tokens: 2_000 });
    expect(child.error?.message).toContain(
      `token budget of session ${child.id} and its subagents is reached (2,000 tokens spent of 2,000)`,
    );
    expect(env.model.requests.filter((r) => r.rule === 'frugal-loop')).toHaveLength(2);
  }, 60_000);
});
