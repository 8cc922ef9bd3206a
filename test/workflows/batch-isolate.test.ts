import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localHostId } from '../../activities/hosts/host-id.js';
import { applyBatch, chooseTasks, endedIsolatedBatch } from '../../client/services/batch-isolation.js';
import { runBatch } from '../../testkit/temporal/batch.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv();
  await env.worker();
});
afterAll(() => env?.close());

const read = (path: string) => readFileSync(join(env.project, path), 'utf8');
const write = (path: string, content: string) => {
  mkdirSync(join(env.project, path, '..'), { recursive: true });
  writeFileSync(join(env.project, path), content);
};

/**
 * Task `name` reads `file`, then (once it has seen the file as the batch found it) writes its own
 * version, and another file of its own; `delayMs` holds its first step back.
 */
function editingTask(name: string, file: string, seen: RegExp, delayMs = 0) {
  const prompt = `Task ${name}: edit ${file}`;
  return [
    {
      name: `${name}-read`,
      when: { lastUser: prompt, lastRole: 'user' as const },
      reply: { toolCalls: [{ name: 'read', args: { filePath: file } }], delayMs },
    },
    {
      name: `${name}-write`,
      when: { lastUser: prompt, lastRole: 'tool' as const, lastTool: seen },
      reply: {
        toolCalls: [
          { name: 'write', args: { filePath: file, content: `${name} was here\n` } },
          { name: 'write', args: { filePath: `${name}-only.txt`, content: `made by ${name}\n` } },
        ],
      },
    },
    { name: `${name}-done`, when: { lastUser: prompt, lastRole: 'tool' as const }, reply: { text: `${name} done` } },
  ];
}

describe('an isolated batch', () => {
  it('gives each task a copy with the uncommitted changes, leaves the project alone, and applies one task and reports the other as a conflict', async () => {
    execFileSync('git', ['init', '--quiet', env.project]);
    write('shared.txt', 'committed\n');
    execFileSync('git', ['-C', env.project, 'add', '.']);
    execFileSync('git', ['-C', env.project, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'one']);
    write('shared.txt', 'uncommitted start\n');
    env.model.setScript([
      ...editingTask('a', 'shared.txt', /uncommitted start/),
      // b reads only after a has written its version: in its own copy it still sees the start.
      ...editingTask('b', 'shared.txt', /uncommitted start/, 1500),
    ]);
    const tasks = ['a', 'b'].map((name) => ({ description: `Edit ${name}`, prompt: `Task ${name}: edit shared.txt` }));
    const { batch, handle } = await runBatch(env, tasks, { concurrency: 2, isolate: true });
    expect(await handle.result()).toMatchObject({ status: 'completed', done: 2, failed: 0 });

    // Both wrote, each saw the start: b's write rule needed the original.
    expect(env.model.requests.map((r) => r.rule)).toEqual(
      expect.arrayContaining(['a-write', 'b-write', 'a-done', 'b-done']),
    );
    const aWrote = env.model.requests.findIndex((r) => r.rule === 'a-done');
    const bRead = env.model.requests.findIndex((r) => r.rule === 'b-write');
    expect(aWrote).toBeLessThan(bRead);
    expect(read('shared.txt')).toBe('uncommitted start\n');
    expect(existsSync(join(env.project, 'a-only.txt'))).toBe(false);

    const stored = await env.store.getBatch(batch.id);
    expect(stored?.isolation).toMatchObject({ root: env.project, folder: join(env.dataDir, 'isolated', batch.id) });
    const entries = await env.store.batchTasks(batch.id);
    for (const [index, name] of ['a', 'b'].entries()) {
      const { outcome } = entries[index];
      expect(outcome.changes).toMatchObject({
        count: 2,
        files: [
          { path: `${name}-only.txt`, status: 'added' },
          { path: 'shared.txt', status: 'modified' },
        ],
      });
      const session = await env.store.getSession(outcome.sessionId!);
      expect(session?.directory).toBe(join(env.dataDir, 'isolated', batch.id, 'tasks', String(index)));
      expect(readFileSync(join(session!.directory, 'shared.txt'), 'utf8')).toBe(`${name} was here\n`);
    }

    const isolated = await endedIsolatedBatch(env.store, batch.id, localHostId(env.env));
    const first = await applyBatch(env.store, isolated, await chooseTasks(env.store, isolated, [0]));
    expect(first.tasks).toEqual([
      {
        index: 0,
        description: 'Edit a',
        applied: ['a-only.txt', 'shared.txt'],
        merged: [],
        unchanged: [],
        conflicts: [],
      },
    ]);
    expect(first.removed).toBe(false);
    expect(read('shared.txt')).toBe('a was here\n');

    const again = await endedIsolatedBatch(env.store, batch.id, localHostId(env.env));
    const second = await applyBatch(env.store, again, await chooseTasks(env.store, again, []));
    expect(second.tasks).toEqual([
      {
        index: 1,
        description: 'Edit b',
        applied: ['b-only.txt'],
        merged: [],
        unchanged: [],
        conflicts: ['shared.txt'],
      },
    ]);
    expect(read('shared.txt')).toBe('a was here\n');
    expect(read('b-only.txt')).toBe('made by b\n');
    expect((await env.store.getBatch(batch.id))?.isolation?.applied).toEqual([0, 1]);
    // The project's own repository saw none of it.
    expect(
      execFileSync('git', ['-C', env.project, 'log', '--oneline'], { encoding: 'utf8' }).trim().split('\n'),
    ).toHaveLength(1);
    await env.checkReplay(batch.id, 'batch-isolated');
  });

  it('works in a project that is no git repository, and deletes the copies once every task is applied', async () => {
    const plain = await createLoomTestEnv({ files: { 'app/main.txt': 'main\n', 'lib/util.txt': 'util\n' } });
    try {
      await plain.worker();
      plain.model.setScript([
        {
          name: 'sub-read',
          when: { lastUser: 'Note it', lastRole: 'user' },
          reply: { toolCalls: [{ name: 'read', args: { filePath: 'main.txt' } }] },
        },
        {
          name: 'sub-write',
          when: { lastUser: 'Note it', lastRole: 'tool', lastTool: /main/ },
          reply: {
            toolCalls: [
              { name: 'write', args: { filePath: 'main.txt', content: 'edited\n' } },
              { name: 'write', args: { filePath: 'note.txt', content: 'noted\n' } },
            ],
          },
        },
        { name: 'sub-done', when: { lastUser: 'Note it', lastRole: 'tool' }, reply: { text: 'ok' } },
      ]);
      const { batch, handle } = await runBatch(plain, [{ description: 'Note', prompt: 'Note it' }], {
        isolate: true,
        directory: join(plain.project, 'app'),
      });
      expect(await handle.result()).toMatchObject({ status: 'completed', done: 1 });
      const [{ outcome }] = await plain.store.batchTasks(batch.id);
      // Without a repository around it, the batch's directory is the copy's root.
      expect(outcome.changes?.files).toEqual([
        { path: 'main.txt', status: 'modified' },
        { path: 'note.txt', status: 'added' },
      ]);
      expect(readFileSync(join(plain.project, 'app/main.txt'), 'utf8')).toBe('main\n');
      writeFileSync(join(plain.project, 'lib/util.txt'), 'util, edited by the person meanwhile\n');

      const isolated = await endedIsolatedBatch(plain.store, batch.id, localHostId(plain.env));
      const applied = await applyBatch(plain.store, isolated, await chooseTasks(plain.store, isolated, []));
      expect(applied.tasks[0]).toMatchObject({ applied: ['main.txt', 'note.txt'], conflicts: [] });
      expect(applied.removed).toBe(true);
      expect(readFileSync(join(plain.project, 'app/main.txt'), 'utf8')).toBe('edited\n');
      expect(readFileSync(join(plain.project, 'app/note.txt'), 'utf8')).toBe('noted\n');
      expect(readFileSync(join(plain.project, 'lib/util.txt'), 'utf8')).toBe('util, edited by the person meanwhile\n');
      expect(existsSync(join(plain.project, '.git'))).toBe(false);
      expect(existsSync(join(plain.dataDir, 'isolated', batch.id))).toBe(false);
      await expect(endedIsolatedBatch(plain.store, batch.id, localHostId(plain.env))).rejects.toThrow(
        `Batch ${batch.id}'s copies were deleted`,
      );
    } finally {
      await plain.close();
    }
  });
});
