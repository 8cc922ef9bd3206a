import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localHostId } from '../../activities/hosts/host-id.js';
import type { BatchRecord } from '../../core/batch/batch.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { parseJson } from '../../testkit/loom/run-loom.js';
import { startTestServer } from '../../testkit/loom/serve-app.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv({ files: { 'notes.txt': 'start\n' } });
  execFileSync('git', ['init', '--quiet', env.project]);
});
afterAll(() => env?.close());

const read = (path: string) => readFileSync(join(env.project, path), 'utf8');

function storedBatch(id: string, overrides: Partial<BatchRecord>): BatchRecord {
  const now = Date.now();
  return {
    id,
    source: 'tasks.jsonl',
    sourceBytes: 10,
    total: 1,
    directory: env.project,
    host: localHostId(env.env),
    agent: 'build',
    concurrency: 1,
    retries: 0,
    status: 'completed',
    time: { created: now, updated: now },
    ...overrides,
  };
}

describe('loom batch run --isolate', () => {
  it('leaves the project alone, shows each task’s diff, applies one and reports the other’s conflict', async () => {
    env.model.setScript(
      ['a', 'b'].flatMap((name) => [
        {
          name: `${name}-read`,
          when: { lastUser: `Rewrite as ${name}`, lastRole: 'user' as const },
          reply: { toolCalls: [{ name: 'read', args: { filePath: 'notes.txt' } }] },
        },
        {
          name: `${name}-write`,
          when: { lastUser: `Rewrite as ${name}`, lastRole: 'tool' as const, lastTool: /start/ },
          reply: { toolCalls: [{ name: 'write', args: { filePath: 'notes.txt', content: `${name} was here\n` } }] },
        },
        {
          name: `${name}-done`,
          when: { lastUser: `Rewrite as ${name}`, lastRole: 'tool' as const },
          reply: { text: 'done' },
        },
      ]),
    );
    const file = join(dirname(env.project), 'rewrite.jsonl');
    writeFileSync(
      file,
      ['a', 'b'].map((name) => JSON.stringify({ description: `As ${name}`, prompt: `Rewrite as ${name}` })).join('\n'),
    );
    const run = await env.loom(['batch', 'run', file, '--isolate', '--concurrency', '2', '-m', 'scripted/test-model']);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('each task in a copy of the project');
    const batchId = /Batch (bat_\w+): 2 tasks/.exec(run.stderr)![1];
    expect(run.stderr).toContain(`\`loom batch apply ${batchId}\` applies it`);
    expect(read('notes.txt')).toBe('start\n');

    expect((await env.loom(['batch', 'results', batchId])).stdout).toMatch(/As a[^\n]*\n\s+modified\s+notes.txt/);
    const diff = await env.loom(['batch', 'diff', batchId, '1']);
    expect(diff.code).toBe(0);
    expect(diff.stdout).toContain('--- a/notes.txt\n+++ b/notes.txt');
    expect(diff.stdout).toContain('-start\n+b was here');
    expect(diff.stderr).toContain('task 1 (As b): 1 file');

    // Both tasks rewrote notes.txt: the diff of the two is still a patch git takes, with the first's change.
    const both = await env.loom(['batch', 'diff', batchId]);
    expect(both.code).toBe(0);
    expect(both.stderr).toContain(`notes.txt left out: task 0 changed it too (\`loom batch diff ${batchId} 1\``);
    expect(both.stdout).toContain('+a was here');
    expect(both.stdout).not.toContain('+b was here');
    execFileSync('git', ['apply', '--check'], { cwd: env.project, input: both.stdout });

    const first = await env.loom(['batch', 'apply', batchId, '0', '--json']);
    expect(first.code).toBe(0);
    expect(parseJson(first)).toMatchObject({
      batchId,
      tasks: [{ index: 0, applied: ['notes.txt'], conflicts: [] }],
      removed: false,
    });
    expect(read('notes.txt')).toBe('a was here\n');

    const second = await env.loom(['batch', 'apply', batchId]);
    expect(second.code).toBe(1);
    expect(second.stdout).toContain('task 1 (As b):\n  conflict  notes.txt');
    expect(second.stderr).toContain('1 file changed in the project since the batch started, left as they are');
    expect(read('notes.txt')).toBe('a was here\n');

    const unknownTask = await env.loom(['batch', 'apply', batchId, '7']);
    expect(unknownTask.code).toBe(1);
    expect(unknownTask.stderr).toContain(`Batch ${batchId} has no task 7: its tasks are numbered 0 to 1`);

    // With the file as it started, task 1 applies and the copies go; applying again changes nothing, and says so.
    writeFileSync(join(env.project, 'notes.txt'), 'start\n');
    expect((await env.loom(['batch', 'apply', batchId, '1'])).code).toBe(0);
    expect(read('notes.txt')).toBe('b was here\n');
    const again = await env.loom(['batch', 'apply', batchId]);
    expect(again.stderr).toMatch(
      new RegExp(`Batch ${batchId} was already applied on .* \\(tasks 0, 1\\): nothing to do`),
    );
    expect(again.code).toBe(0);
    expect(read('notes.txt')).toBe('b was here\n');

    // The copies are gone; the tasks' sessions still belong to the project, and no copy reads as one.
    const sessions = (await env.loom(['batch', 'results', batchId, '--json'])).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).sessionId as string);
    const listed = (await env.loom(['ls'])).stdout;
    for (const id of sessions) expect(listed).toContain(id);
    expect((await env.loom(['ls', '--all-projects'])).stdout).not.toContain('isolated');
    const server = await startTestServer(env);
    try {
      const projects = await server.ok<{ directory: string }[]>('GET', '/project');
      expect(projects.map((project) => project.directory)).toEqual([env.project]);
    } finally {
      await server.close();
    }

    // A task's session resumes in the project, once told to: its own folder is gone.
    const gone = await env.loom(['resume', sessions[0], 'Look again']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain(`Session ${sessions[0]} worked in `);
    expect(gone.stderr).toContain(`which is gone (the copy of ${env.project} its isolated batch made, deleted since)`);
    expect(gone.stderr).toContain(`\`loom resume ${sessions[0]} --dir ${env.project} "…"\``);
    env.model.setScript([{ name: 'again', when: { lastUser: 'Look again' }, reply: { text: 'looked again' } }]);
    const resumed = await env.loom(['resume', sessions[0], '--dir', env.project, 'Look again']);
    expect(resumed.stdout).toContain('looked again');
    expect(resumed.code).toBe(0);
    expect((await env.store.getSession(sessions[0]))?.directory).toBe(env.project);
  }, 120_000);

  it('names the batch it refuses: unknown, not isolated, still running', async () => {
    expect((await env.loom(['batch', 'apply', 'bat_nope'])).stderr).toContain('Unknown batch "bat_nope"');

    await env.store.createBatch(storedBatch('bat_plain', {}), [{ description: 'd', prompt: 'p' }]);
    const plain = await env.loom(['batch', 'apply', 'bat_plain']);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain('Batch bat_plain did not run with --isolate');

    await env.store.createBatch(storedBatch('bat_busy', { status: 'running', isolation: {} }), [
      { description: 'd', prompt: 'p' },
    ]);
    const busy = await env.loom(['batch', 'apply', 'bat_busy']);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain('Batch bat_busy is still running');
    expect((await env.loom(['batch', 'diff', 'bat_busy'])).stderr).toContain('Batch bat_busy is still running');
  });
});
