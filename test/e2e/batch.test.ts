import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { parseJson } from '../../testkit/loom/run-loom.js';
import { waitFor } from '../../testkit/wait.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv();
});
afterAll(() => env?.close());

const jsonl = (name: string, lines: unknown[]) => {
  const path = join(env.project, name);
  writeFileSync(path, lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n'));
  return path;
};

describe('loom batch', () => {
  it('runs a JSONL file, and results, status and ls describe every task', async () => {
    env.model.setScript([
      {
        name: 'item',
        when: { lastUser: /^Item \d+$/ },
        reply: (r) => ({ text: `## Done\n\nhandled **${r.lastUser}**` }),
      },
    ]);
    const file = jsonl(
      'items.jsonl',
      Array.from({ length: 12 }, (_, i) => ({ description: `Item ${i}`, prompt: `Item ${i}` })),
    );
    const run = await env.loom(['batch', 'run', file, '--concurrency', '4', '-m', 'scripted/test-model', '--json']);
    expect(run.code).toBe(0);
    const progress = parseJson(run);
    expect(progress).toMatchObject({ status: 'completed', total: 12, done: 12, failed: 0 });
    expect(run.stderr).toContain(`Batch ${progress.batchId}: 12 tasks from`);

    const lines = (await env.loom(['batch', 'results', progress.batchId, '--json'])).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(12);
    expect(lines[5]).toMatchObject({
      index: 5,
      status: 'completed',
      description: 'Item 5',
      text: '## Done\n\nhandled **Item 5**',
      attempts: 1,
    });
    expect(lines.every((line) => line.sessionId?.startsWith('ses_'))).toBe(true);
    // A markdown answer is summed up by its first line of words, not its heading.
    const results = (await env.loom(['batch', 'results', progress.batchId])).stdout;
    expect(results).toMatch(/✓ {5}5 {2}completed .*Item 5 {2}— handled Item 5\n/);
    expect(results).not.toContain('## Done');

    expect(parseJson(await env.loom(['batch', 'status', progress.batchId, '--json']))).toMatchObject({
      status: 'completed',
      done: 12,
    });
    // Each batch says which project its tasks worked in.
    expect((await env.loom(['batch', 'ls'])).stdout).toMatch(
      new RegExp(`${progress.batchId}\\s+completed\\s+12/12 done\\s+${env.project}\\s`),
    );
    expect((await env.loom(['show', lines[5].sessionId])).stdout).toMatch(/handled \**Item 5/);
  });

  it('shows the same tasks/s when it ends as `loom batch status` later', async () => {
    env.model.setScript([{ name: 'one', when: { lastUser: 'The only task' }, reply: { text: 'done', delayMs: 300 } }]);
    const file = jsonl('one.jsonl', [{ description: 'Only', prompt: 'The only task' }]);
    const run = await env.loom(['batch', 'run', file, '-m', 'scripted/test-model']);
    expect(run.code).toBe(0);
    const batchId = /Batch (bat_\w+): 1 task from/.exec(run.stderr)![1];
    const rate = /tokens · ([\d.]+) tasks\/s/.exec(run.stderr)![1];
    // Time passes after the end: an ended batch's rate stays what it was.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const status = await env.loom(['batch', 'status', batchId]);
    expect(status.stdout).toContain(`1 done, 0 failed, 0 cancelled of 1`);
    expect(/tokens · ([\d.]+) tasks\/s/.exec(status.stdout)![1]).toBe(rate);
    const pause = await env.loom(['batch', 'pause', batchId]);
    expect(pause.code).not.toBe(0);
    expect(pause.stderr).toContain(`Batch ${batchId} already completed (1 done); nothing to pause.`);
  });

  it('names the bad lines of a batch file', async () => {
    const file = jsonl('bad.jsonl', [
      { description: 'ok', prompt: 'fine' },
      '{not json',
      { description: 'missing prompt' },
      { description: 'x', prompt: 'y', colour: 'red' },
    ]);
    const result = await env.loom(['batch', 'run', file]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('3 bad lines in');
    expect(result.stderr).toContain(`${file}:2: not JSON`);
    expect(result.stderr).toContain(`${file}:3: prompt:`);
    expect(result.stderr).toContain(`${file}:4:`);
    expect((await env.loom(['batch', 'status', 'bat_nope'])).stderr).toContain('Unknown batch "bat_nope"');
  });

  it("refuses a task folder outside the batch's directory, missing, or behind a symlink that leads out, and starts nothing", async () => {
    const before = (await env.store.listBatches(100)).length;
    const up = jsonl('up.jsonl', [
      { description: 'ok', prompt: 'fine' },
      { description: 'Up', prompt: 'p', directory: '../outside' },
    ]);
    const refusedUp = await env.loom(['batch', 'run', up]);
    expect(refusedUp.code).toBe(1);
    expect(refusedUp.stderr).toContain(
      `${up}:2: directory: must be a folder inside the batch's directory, written relative to it (not "../outside")`,
    );

    mkdirSync(join(env.project, 'pkg'), { recursive: true });
    // Beside the project, in the test's own folder, which is removed at the end.
    const outside = join(dirname(env.project), 'outside');
    mkdirSync(outside);
    symlinkSync(outside, join(env.project, 'escape'));
    const file = jsonl('dirs.jsonl', [
      { description: 'Fine', prompt: 'p', directory: 'pkg' },
      { description: 'Missing', prompt: 'p', directory: 'missing' },
      { description: 'Escape', prompt: 'p', directory: 'escape' },
    ]);
    const refused = await env.loom(['batch', 'run', file, '-m', 'scripted/test-model']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`2 tasks name bad directories (each must be a folder inside ${env.project}):`);
    expect(refused.stderr).toContain('task 2 ("Missing"): directory "missing" does not exist');
    expect(refused.stderr).toContain(
      `task 3 ("Escape"): directory "escape" leads outside the batch's directory, to ${realpathSync(outside)}`,
    );
    expect(refused.stderr).not.toContain('task 1');
    expect(await env.store.listBatches(100)).toHaveLength(before);
  });

  it('pauses, resumes and cancels from the CLI; Ctrl-C only detaches', async () => {
    env.model.setScript([
      { name: 'slow', when: { lastUser: /^Slow \d+$/ }, reply: { text: 'slow done', delayMs: 3000 } },
    ]);
    const file = jsonl(
      'slow.jsonl',
      Array.from({ length: 20 }, (_, i) => ({ description: `Slow ${i}`, prompt: `Slow ${i}` })),
    );
    await env.worker();
    const run = env.spawnLoom(['batch', 'run', file, '--concurrency', '2', '-m', 'scripted/test-model']);
    let stderr = '';
    run.child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await waitFor(() => /Batch (bat_\w+): 20 tasks/.test(stderr), 30_000);
    const batchId = /Batch (bat_\w+): 20 tasks/.exec(stderr)![1];
    await waitFor(() => env.model.requests.some((r) => r.rule === 'slow'), 30_000);
    run.child.kill('SIGINT');
    const detached = await run.result;
    expect(detached.code).toBe(130);
    expect(detached.stderr).toContain(`Left batch ${batchId} running`);

    expect((await env.loom(['batch', 'pause', batchId])).stderr).toContain('paused');
    expect(parseJson(await env.loom(['batch', 'status', batchId, '--json']))).toMatchObject({ status: 'paused' });
    expect((await env.loom(['batch', 'concurrency', batchId, '5'])).stderr).toContain('concurrency 5');
    expect((await env.loom(['batch', 'resume', batchId])).stderr).toContain('running');
    expect((await env.loom(['batch', 'cancel', batchId])).stderr).toContain('cancelling');
    const final = await env.client.workflow.getHandle(batchId).result();
    expect(final.status).toBe('cancelled');
    const lines = (await env.loom(['batch', 'results', batchId, '--json'])).stdout.trim().split('\n');
    expect(lines).toHaveLength(20);
    const done = (await env.store.batchCounts(batchId)).completed;
    expect((await env.loom(['batch', 'pause', batchId])).stderr).toContain(
      `Batch ${batchId} was cancelled (${done} done, ${20 - done} cancelled); nothing to pause.`,
    );
  }, 90_000);

  it('counts the tokens of running tasks, and cancelled tasks apart from done ones', async () => {
    env.model.setScript([
      {
        name: 'look',
        when: { lastUser: /^Look \d+$/, lastRole: 'user' },
        reply: { toolCalls: [{ name: 'glob', args: { pattern: '*.jsonl' } }] },
      },
      { name: 'think', when: { lastUser: /^Look \d+$/, lastRole: 'tool' }, reply: { text: 'looked', delayMs: 60_000 } },
    ]);
    const file = jsonl(
      'look.jsonl',
      Array.from({ length: 4 }, (_, i) => ({ description: `Look ${i}`, prompt: `Look ${i}` })),
    );
    // The worker the test before started runs the batch.
    const run = env.spawnLoom(['batch', 'run', file, '--concurrency', '1', '-m', 'scripted/test-model']);
    let stderr = '';
    run.child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await waitFor(() => /Batch (bat_\w+): 4 tasks/.test(stderr), 30_000);
    const batchId = /Batch (bat_\w+): 4 tasks/.exec(stderr)![1];
    await waitFor(() => env.model.requests.some((r) => r.rule === 'think'), 30_000);

    // The first task is still thinking: its first step's tokens count already.
    const running = parseJson(await env.loom(['batch', 'status', batchId, '--json']));
    expect(running).toMatchObject({ status: 'running', done: 0, running: 1 });
    expect(running.tokens.input).toBeGreaterThan(0);
    expect((await env.loom(['batch', 'status', batchId])).stdout).not.toMatch(/^\s+0 tokens/m);

    expect((await env.loom(['batch', 'cancel', batchId])).code).toBe(0);
    const finished = await run.result;
    expect(finished.code).toBe(130);
    // The progress line and the summary count alike: the cancelled tasks are not among the done ones.
    expect(finished.stderr).toContain('0 done · 0 failed · 1 running of 4');
    expect(finished.stderr).not.toMatch(/\d+\/4 done/);
    const { completed, cancelled } = await env.store.batchCounts(batchId);
    expect(cancelled).toBeGreaterThan(0);
    expect(finished.stderr).toContain(
      `Batch ${batchId} cancelled: ${completed} done, 0 failed, ${cancelled} cancelled of 4`,
    );
    expect(finished.stderr).not.toMatch(/^\s+0 tokens/m);
    // The task cancelled while it thought keeps what its first step spent.
    const outcomes = (await env.loom(['batch', 'results', batchId, '--json'])).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const stopped = outcomes.find((outcome) => outcome.status === 'cancelled' && outcome.sessionId);
    expect(stopped?.tokens?.input).toBeGreaterThan(0);
  }, 90_000);
});
