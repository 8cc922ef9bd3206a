import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bash, prompt, put, write } from '../../testkit/model/scripted-agent.js';
import type { LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { parseJson } from '../../testkit/loom/run-loom.js';
import { createUndoEnv, undoHelpers } from '../../testkit/loom/undo-project.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createUndoEnv();
});
afterAll(() => env?.close());

const { project, turn, loom, read, userMessages } = undoHelpers(() => env);

// Turns, snapshots off, the next prompt after a revert, fork and the server's routes are in undo-turns.test.ts, run beside this file.
describe('undo: loom diff, revert and unrevert', () => {
  it('reverts a turn run from a subfolder: only its files, not a sibling folder, not another session', async () => {
    const root = project(
      'repo',
      { 'app/main.ts': 'v1\n', 'app/gone.ts': 'gone\n', 'lib/util.ts': 'u1\n', 'other/notes.md': 'n1\n' },
      true,
    );
    writeFileSync(join(root, 'other/notes.md'), 'n1 and the person\n');
    const app = join(root, 'app');
    const a = await turn(app, prompt(put('main.ts', 'v2'), bash('rm gone.ts')));
    const b = await turn(root, prompt(put('lib/util.ts', 'u2')));
    expect(read(join(app, 'main.ts'))).toBe('v2\n');
    expect(read(join(app, 'gone.ts'))).toBeUndefined();

    const diff = parseJson(await loom(['diff', a, '--json']));
    expect(diff.files.map((f: { file: string; status: string }) => `${f.status} ${f.file}`)).toEqual([
      'deleted app/gone.ts',
      'modified app/main.ts',
    ]);
    expect(diff.files[1].diff).toContain('-v1\n+v2');
    const shown = await loom(['show', a]);
    expect(shown.stdout).toContain(`2 files changed: app/gone.ts, app/main.ts (loom diff ${a} --step 1)`);

    const reverted = await loom(['revert', a]);
    expect(reverted.code).toBe(0);
    expect(reverted.stderr).toContain('2 files restored: app/gone.ts, app/main.ts');
    expect(read(join(app, 'main.ts'))).toBe('v1\n');
    expect(read(join(app, 'gone.ts'))).toBe('gone\n');
    expect(read(join(root, 'lib/util.ts'))).toBe('u2\n');
    expect(read(join(root, 'other/notes.md'))).toBe('n1 and the person\n');
    expect((await env.store.getSession(a))?.revert?.messageID).toBe((await userMessages(a))[0]);
    expect((await loom(['show', a])).stdout).toContain('reverted from here');

    const unreverted = parseJson(await loom(['unrevert', a, '--json']));
    expect(unreverted).toMatchObject({ sessionId: a, restored: ['app/gone.ts', 'app/main.ts'], conflicts: [] });
    expect(read(join(app, 'main.ts'))).toBe('v2\n');
    expect(read(join(app, 'gone.ts'))).toBeUndefined();
    expect((await env.store.getSession(a))?.revert).toBeUndefined();
    expect(read(join(root, 'lib/util.ts'))).toBe('u2\n');
    expect(b).not.toBe(a);
    await env.checkReplay(a, 'step-snapshots');
  });

  it("reverts a subagent's edits with its parent's turn, in a folder that is no git repository", async () => {
    const folder = project('plain', { 'keep.txt': 'keep\n' });
    const delegate = {
      name: 'task',
      args: { description: 'write c', prompt: prompt(write('c.txt', 'from the subagent\n')), subagent_type: 'general' },
    };
    const parent = await turn(folder, prompt(write('p.txt', 'from the parent\n'), delegate));
    expect(read(join(folder, 'c.txt'))).toBe('from the subagent\n');
    const diff = parseJson(await loom(['diff', parent, '--json']));
    expect(diff.files.map((f: { file: string }) => f.file)).toEqual(['c.txt', 'p.txt']);

    const reverted = parseJson(await loom(['revert', parent, '--json']));
    expect(reverted.restored).toEqual(['c.txt', 'p.txt']);
    expect(read(join(folder, 'c.txt'))).toBeUndefined();
    expect(read(join(folder, 'p.txt'))).toBeUndefined();
    expect(read(join(folder, 'keep.txt'))).toBe('keep\n');
  });

  it("leaves a person's own edits alone, between turns and after the agent, unless --force", async () => {
    const folder = project('edits', { 'a.txt': 'a0\n', 'b.txt': 'b0\n' });
    const session = await turn(folder, prompt(put('a.txt', 'a1')));
    writeFileSync(join(folder, 'b.txt'), 'b by the person\n');
    await turn(folder, prompt(put('a.txt', 'a2')), session);

    expect((await loom(['show', session])).stdout).toContain(`1 file changed: a.txt (loom diff ${session} --step 3)`);
    const second = parseJson(await loom(['diff', session, '--step', '3', '--json']));
    expect(second.files.map((f: { file: string }) => f.file)).toEqual(['a.txt']);
    expect(second.files[0].diff).toContain('-a1\n+a2');
    const bad = await loom(['diff', session, '--step', '9']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`Session ${session} has 4 steps: there is no step 9.`);

    await loom(['revert', session]);
    expect(read(join(folder, 'a.txt'))).toBe('a1\n');
    expect(read(join(folder, 'b.txt'))).toBe('b by the person\n');
    await loom(['unrevert', session]);
    expect(read(join(folder, 'a.txt'))).toBe('a2\n');

    writeFileSync(join(folder, 'a.txt'), 'a by the person\n');
    const refused = await loom(['revert', session]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Left alone, changed since by someone else: a.txt');
    expect(read(join(folder, 'a.txt'))).toBe('a by the person\n');
    const forced = await loom(['revert', session, '--force']);
    expect(forced.code).toBe(0);
    expect(read(join(folder, 'a.txt'))).toBe('a1\n');

    // A redo that would overwrite a file changed since the undo does nothing, unless forced.
    writeFileSync(join(folder, 'a.txt'), 'a again by the person\n');
    const noRedo = await loom(['unrevert', session]);
    expect(noRedo.code).toBe(1);
    expect(noRedo.stderr).toContain('Not unreverted: a.txt changed since the revert');
    expect(read(join(folder, 'a.txt'))).toBe('a again by the person\n');
    expect((await env.store.getSession(session))?.revert).toBeDefined();
    expect((await loom(['unrevert', session, '--force'])).code).toBe(0);
    expect(read(join(folder, 'a.txt'))).toBe('a by the person\n');

    const unknown = await loom(['revert', session, 'msg_nope']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`Session ${session} has no message "msg_nope".`);
  });
});
