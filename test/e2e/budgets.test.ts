import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { parseJson } from '../../testkit/loom/run-loom.js';
import { launchChromium } from '../../testkit/browser/chromium.js';
import { startTestServer } from '../../testkit/loom/serve-app.js';
import { waitUntil } from '../../testkit/wait.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv({
    config: { model: 'scripted/test-model' },
    rules: [
      {
        name: 'loop',
        // 1,000 tokens a call, and another command each time (the same one thrice would ask about a doom loop).
        reply: (request) => ({
          usage: { prompt_tokens: 900, completion_tokens: 100 },
          toolCalls: [{ name: 'bash', args: { command: `echo step ${request.index}`, description: 'Again' } }],
        }),
      },
    ],
    // $10 in and $30 out per million tokens: each call costs $0.012.
    providers: (url) => ({
      priced: { options: { baseURL: url, apiKey: 'test' }, models: { m: { cost: { input: 10, output: 30 } } } },
    }),
  });
  await env.worker();
});
afterAll(() => env?.close());

const sessionCount = async () => (await env.store.listSessions({ limit: 1000 })).length;
const userMessages = async (sessionId: string) =>
  (await env.store.messages(sessionId)).filter((m) => m.info.role === 'user').length;

describe('loom run and resume with a budget', () => {
  it('stops at the budget, shows spend against it, and goes on only with a larger one', async () => {
    const run = await env.loom(['run', '--max-tokens', '3000', '--json', 'Loop until stopped.']);
    expect(run.code, run.stderr).toBe(1);
    const { sessionId, status, error } = parseJson(run);
    expect(status).toBe('failed');
    expect(error.name).toBe('BudgetExceeded');
    expect(error.message).toContain(
      `token budget of session ${sessionId} and its subagents is reached (3,000 tokens spent of 3,000)`,
    );
    expect(error.message).toContain(`loom resume ${sessionId} --max-tokens 6000`);

    const tree = await env.loom(['tree', sessionId]);
    expect(tree.stdout).toContain('budget 3,000 / 3,000 tokens');
    expect(parseJson(await env.loom(['tree', sessionId, '--json'])).budget).toEqual({ tokens: 3000 });
    const show = await env.loom(['show', sessionId]);
    expect(show.stdout).toContain(`budget of ${sessionId} and its subagents: 3,000 / 3,000 tokens`);
    expect(show.stdout).toContain('BudgetExceeded');

    // No budget given: refused before the prompt is sent, saying how to go on.
    const stuck = await env.loom(['resume', sessionId, 'Go on.']);
    expect(stuck.code).toBe(1);
    expect(stuck.stderr).toContain(`loom resume ${sessionId} --max-tokens 6000`);
    // A budget the tree has already spent: refused too.
    const below = await env.loom(['resume', sessionId, '--max-tokens', '2500', 'Go on.']);
    expect(below.code).toBe(1);
    expect(below.stderr).toContain(
      `Session ${sessionId} and its subagents have already used 3000 tokens: --max-tokens 2500 would stop it at once. Give more than 3000.`,
    );
    expect(await userMessages(sessionId)).toBe(1);

    const more = await env.loom(['resume', sessionId, '--max-tokens', '5000', '--json', 'Go on.']);
    expect(parseJson(more).error.message).toContain('(5,000 tokens spent of 5,000)');
    expect(await userMessages(sessionId)).toBe(2);
  }, 120_000);

  it('stops at a cost budget when the model has prices', async () => {
    const run = await env.loom(['run', '-m', 'priced/m', '--max-cost', '$0.05', '--json', 'Loop until stopped.']);
    expect(parseJson(run).error.message).toMatch(
      /cost budget of session ses_\w+ .* is reached \(\$0\.06 spent of \$0\.05\)/,
    );
  }, 60_000);

  it.each([
    [['--max-tokens=-5'], '--max-tokens must be a whole number of tokens above 0, not "-5".'],
    [['--max-tokens', 'lots'], '--max-tokens must be a whole number of tokens above 0, not "lots".'],
    [['--max-tokens', '1.5'], '--max-tokens must be a whole number of tokens above 0, not "1.5".'],
    [['--max-cost', '0'], '--max-cost must be an amount of dollars above 0 (like 2.50), not "0".'],
    [
      ['--max-cost', '1'],
      'Model scripted/test-model cannot be priced, so the cost budget of the new session cannot count what it spends: add its prices to loom.json (provider.scripted.models.test-model.cost',
    ],
  ])('refuses %j before anything starts', async (flags, message) => {
    const before = await sessionCount();
    const run = await env.loom(['run', ...flags, 'Loop until stopped.']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(message);
    expect(await sessionCount()).toBe(before);
  });
});

describe('loom batch run with budgets', () => {
  it('stops each task at its own budget, and starts no task once the batch has spent its own', async () => {
    const file = join(env.project, 'loops.jsonl');
    writeFileSync(
      file,
      Array.from({ length: 8 }, (_, i) => JSON.stringify({ description: `Loop ${i}`, prompt: `Loop ${i}.` })).join(
        '\n',
      ),
    );
    const run = await env.loom([
      'batch',
      'run',
      file,
      '--concurrency',
      '2',
      '--retries',
      '2',
      '--max-tokens',
      '5000',
      '--task-max-tokens',
      '2000',
      '--json',
    ]);
    const progress = parseJson(run);
    expect(progress).toMatchObject({ status: 'cancelled', done: 0 });
    const lines = (await env.loom(['batch', 'results', progress.batchId, '--json'])).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const failed = lines.filter((line) => line.status === 'failed');
    // Two tasks at 2,000 each, then the batch's 5,000 is reached during the next two.
    expect(failed.length).toBeGreaterThanOrEqual(3);
    expect(failed.length).toBeLessThanOrEqual(4);
    expect(lines.filter((line) => line.status === 'cancelled').length).toBe(8 - failed.length);
    // A spent budget is not retried.
    for (const line of failed) expect(line.attempts).toBe(1);
    expect(failed[0].error).toMatch(
      /token budget of session ses_\w+ and its subagents is reached \(2,000 tokens spent of 2,000\)/,
    );
    expect(failed.some((line) => line.error.includes(`budget of batch ${progress.batchId} is reached`))).toBe(true);
    const spent = await env.store.batchUsage(progress.batchId);
    expect(spent.tokens.input + spent.tokens.output).toBeGreaterThanOrEqual(5000);
    expect(spent.tokens.input + spent.tokens.output).toBeLessThanOrEqual(7000);
  }, 120_000);

  it('refuses bad batch budgets before anything starts', async () => {
    const file = join(env.project, 'one.jsonl');
    writeFileSync(file, JSON.stringify({ description: 'One', prompt: 'Loop.' }));
    const bad = await env.loom(['batch', 'run', file, '--task-max-tokens', 'many']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('--task-max-tokens must be a whole number of tokens above 0, not "many".');
    const unpriced = await env.loom(['batch', 'run', file, '--max-cost', '3']);
    expect(unpriced.code).toBe(1);
    expect(unpriced.stderr).toContain('Model scripted/test-model cannot be priced, so the cost budget of the batch');
  });
});

describe('budgets on the server', () => {
  it('takes maxTokens and maxCost, refusing bad ones with the field, and shows spend against the budget', async () => {
    const server = await startTestServer(env);
    const post = (path: string, body: unknown): Promise<{ status: number; json(): Promise<any> }> =>
      fetch(`${server.base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    try {
      const negative = await post('/session', { prompt: 'Loop.', maxTokens: -1 });
      expect(negative.status).toBe(400);
      expect((await negative.json()).error).toMatch(/maxTokens: .*/);
      const unpriced = await post('/session', { prompt: 'Loop.', maxCost: 2 });
      expect(unpriced.status).toBe(400);
      expect((await unpriced.json()).error).toContain('Model scripted/test-model cannot be priced');

      const started = await post('/session', { prompt: 'Loop until stopped.', maxTokens: 2000 });
      expect(started.status).toBe(201);
      const { id } = await started.json();
      await waitUntil(async () => (await env.store.getSession(id))?.status === 'failed', 30_000);
      const tree = (await (await fetch(`${server.base}/session/${id}/tree`)).json()) as any;
      expect(tree.budget).toEqual({ tokens: 2000 });
      expect(tree.tree.tokens.input + tree.tree.tokens.output).toBe(2000);

      // The web view's session tree shows the spend against the budget, and the reason it stopped.
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        await page.goto(`${server.base}/#/session/${id}`);
        const budget = page.locator(`[data-budget="${id}"]`);
        await budget.waitFor();
        expect(await budget.innerText()).toContain('budget 2,000 / 2,000 tokens');
        // Why the session stopped, and how to go on.
        expect(await page.locator('[data-session-error]').innerText()).toContain(
          `BudgetExceeded: The token budget of session ${id} and its subagents is reached`,
        );
      } finally {
        await browser.close();
      }

      const spent = await post(`/session/${id}/message`, { prompt: 'Go on.' });
      expect(spent.status).toBe(409);
      expect((await spent.json()).error).toContain('token budget');
      const below = await post(`/session/${id}/message`, { prompt: 'Go on.', maxTokens: 1500 });
      expect(below.status).toBe(400);
      expect((await below.json()).error).toContain('maxTokens 1500 would stop it at once');
      const batch = await post('/batch', { tasks: [{ description: 'a', prompt: 'Loop.' }], taskMaxCost: 1 });
      expect(batch.status).toBe(400);
      expect((await batch.json()).error).toContain('Model scripted/test-model cannot be priced');
      const badBatch = await post('/batch', { tasks: [{ description: 'a', prompt: 'Loop.' }], maxTokens: 0 });
      expect(badBatch.status).toBe(400);
      expect((await badBatch.json()).error).toMatch(/maxTokens/);

      const more = await post(`/session/${id}/message`, { prompt: 'Go on.', maxTokens: 3000 });
      expect(more.status).toBe(202);
      await waitUntil(async () => (await env.store.budgetOf(id))?.tokens === 3000, 10_000);
    } finally {
      await server.close();
    }
  }, 90_000);
});
