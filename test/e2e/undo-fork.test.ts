import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentDoes, bash, prompt, put, write } from '../../testkit/scripted-agent.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom-env.js';
import { parseJson, runLoom } from '../../testkit/run-loom.js';
import { startTestServer } from '../../testkit/serve-app.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv({ rules: [agentDoes], config: { auto_title: false } });
  await env.worker();
});
afterAll(() => env?.close());

/** A folder of its own for a test, with files; a git repository with them committed when `git`. */
function project(name: string, files: Record<string, string>, git = false): string {
  const root = join(env.project, '..', name);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  if (git) {
    const run = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'pipe' });
    run('init', '--quiet');
    run('add', '.');
    run('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'start');
  }
  return root;
}

/** One turn of a session (a new one unless `sessionId`) in `directory`; resolves once it finished. */
async function turn(directory: string, text: string, sessionId?: string): Promise<string> {
  const run = await env.start(text, { directory, ...(sessionId ? { sessionId } : {}) });
  expect(await run.result()).toMatchObject({ status: 'completed' });
  return run.sessionId;
}

const loom = (args: string[], cwd = env.project) => runLoom(args, { env: { ...env.env, NO_COLOR: '1' }, cwd });
const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);
const userMessages = async (sessionId: string) =>
  (await env.store.messages(sessionId)).filter((m) => m.info.role === 'user').map((m) => m.info.id);

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

describe('turns: what loom show numbers, revert, fork and diff take', () => {
  it("shows each turn's number, message id and steps, and takes the number wherever a message id goes", async () => {
    const folder = project('turns', {});
    const session = await turn(folder, prompt(write('one.txt', '1\n')));
    await turn(folder, prompt(write('two.txt', '2\n')), session);
    const [first, second] = await userMessages(session);

    const shown = (await loom(['show', session])).stdout;
    expect(shown).toContain(`── user · turn 1 · ${first} · steps 1–2 · `);
    expect(shown).toContain(`── user · turn 2 · ${second} · steps 3–4 · `);
    expect(shown).toContain(`1 file changed: two.txt (loom diff ${session} --step 3)`);
    expect(shown.match(/── build · step \d/g)).toEqual([
      '── build · step 1',
      '── build · step 2',
      '── build · step 3',
      '── build · step 4',
    ]);

    const diff = parseJson(await loom(['diff', session, '--message', '2', '--json']));
    expect(diff.files.map((f: { file: string }) => f.file)).toEqual(['two.txt']);

    const reverted = parseJson(await loom(['revert', session, '2', '--json']));
    expect(reverted).toMatchObject({ messageID: second, restored: ['two.txt'] });
    expect(read(join(folder, 'two.txt'))).toBeUndefined();
    expect(read(join(folder, 'one.txt'))).toBe('1\n');
    expect((await loom(['unrevert', session])).code).toBe(0);

    const fork = parseJson(await loom(['fork', session, '2', '--json']));
    const copied = await env.store.messages(fork.sessionId);
    expect(copied.filter((m) => m.info.role === 'user')).toHaveLength(1);
    expect((await env.store.getSession(fork.sessionId))?.forkedFrom).toEqual({ sessionID: session, messageID: second });

    const none = await loom(['revert', session, '3']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain(`Session ${session} has 2 turns: there is no turn 3.`);
    expect(read(join(folder, 'one.txt'))).toBe('1\n');
  });
});

describe('"snapshot": false', () => {
  it('takes no snapshots, so there is nothing to diff or revert', async () => {
    const folder = project('no-snapshots', { 'loom.json': JSON.stringify({ snapshot: false }) });
    const session = await turn(folder, prompt(write('made.txt', 'made\n')));
    expect(read(join(folder, 'made.txt'))).toBe('made\n');
    const parts = (await env.store.messages(session)).flatMap((m) => m.parts);
    expect(parts.some((p) => p.type === 'patch')).toBe(false);
    const diff = await loom(['diff', session]);
    expect(diff.stderr).toContain(`Session ${session} changed no files.`);
  });
});

describe('after a revert, the next prompt', () => {
  it('drops the hidden messages for good, and the model never sees them', async () => {
    const folder = project('next-prompt', {});
    const session = await turn(folder, prompt(write('one.txt', '1\n')));
    await turn(folder, prompt(write('two.txt', '2\n')), session);
    const [, second] = await userMessages(session);
    await loom(['revert', session]);
    expect(read(join(folder, 'two.txt'))).toBeUndefined();

    await turn(folder, prompt(write('three.txt', '3\n')), session);
    const texts = (await env.store.messages(session)).flatMap((m) =>
      m.parts.flatMap((p) => (p.type === 'text' && m.info.role === 'user' ? [p.text] : [])),
    );
    expect(texts).toHaveLength(2);
    expect(texts.join()).not.toContain('two.txt');
    expect((await userMessages(session)).includes(second)).toBe(false);
    expect((await env.store.getSession(session))?.revert).toBeUndefined();
    const asked = env.model.requests.at(-1)!;
    expect(JSON.stringify(asked.messages)).not.toContain('two.txt');
    const nothing = await loom(['unrevert', session]);
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain(`Session ${session} is not reverted`);
  });
});

describe('loom fork', () => {
  it('forks from a message into a folder holding the files of that moment, while the project keeps its own', async () => {
    const root = project('forked', { 'x.txt': 'x0\n' }, true);
    const session = await turn(root, prompt(put('x.txt', 'x1')));
    await turn(root, prompt(put('x.txt', 'x2'), write('y.txt', 'y\n')), session);
    const [, second] = await userMessages(session);
    const dir = join(root, '..', 'forked-try');

    const fork = parseJson(await loom(['fork', session, second, '--dir', dir, '--json']));
    expect(fork.directory).toBe(dir);
    expect(fork.files).toMatchObject({ kind: 'worktree' });
    expect(read(join(dir, 'x.txt'))).toBe('x1\n');
    expect(read(join(dir, 'y.txt'))).toBeUndefined();
    expect(read(join(root, 'x.txt'))).toBe('x2\n');
    expect(read(join(root, 'y.txt'))).toBe('y\n');
    const branch = execFileSync('git', ['branch', '--show-current'], { cwd: dir, encoding: 'utf8' }).trim();
    expect(branch).toBe(fork.files.branch);

    const forked = (await env.store.getSession(fork.sessionId))!;
    expect(forked).toMatchObject({ title: expect.stringMatching(/ \(fork\)$/), forkedFrom: { sessionID: session } });
    const copied = await env.store.messages(fork.sessionId);
    const original = await env.store.messages(session);
    expect(copied.map((m) => m.info.role)).toEqual(original.slice(0, copied.length).map((m) => m.info.role));
    expect(copied.length).toBeLessThan(original.length);
    expect(copied.every((m) => !original.some((o) => o.info.id === m.info.id))).toBe(true);

    await turn(dir, prompt(write('z.txt', 'z\n')), fork.sessionId);
    expect(read(join(dir, 'z.txt'))).toBe('z\n');
    expect(read(join(root, 'z.txt'))).toBeUndefined();

    const taken = await loom(['fork', session, second, '--dir', dir]);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain(`${dir} is not empty`);
  });

  it('makes the --dir folder, parents and all, for a project that is no git repository', async () => {
    const folder = project('plain-fork', { 'p.txt': 'p0\n' });
    const session = await turn(folder, prompt(put('p.txt', 'p1')));
    const dir = join(folder, '..', 'plain-fork-tries', 'first');

    const forked = await loom(['fork', session, '--dir', dir, '--json']);
    expect(forked.code, forked.stderr).toBe(0);
    expect(parseJson(forked)).toMatchObject({ directory: dir, files: { kind: 'folder' } });
    expect(read(join(dir, 'p.txt'))).toBe('p1\n');
  });
});

describe('the server: revert, unrevert, fork and diff in OpenCode shapes', () => {
  it('answers each, and refuses what cannot be done with the status that says why', async () => {
    const server = await startTestServer(env);
    const call = async (method: string, path: string, body?: object) => {
      const response = await fetch(`${server.base}${path}`, {
        method,
        headers: body ? { 'content-type': 'application/json' } : {},
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    try {
      const folder = project('served', { 'm.txt': 'm0\n' });
      const session = await turn(folder, prompt(put('m.txt', 'm1'), write('n.txt', 'n\n')));

      const diff = await call('GET', `/session/${session}/diff`);
      expect(diff.status).toBe(200);
      expect(diff.body.map((f: any) => [f.file, f.before, f.after, f.additions, f.deletions])).toEqual([
        ['m.txt', 'm0\n', 'm1\n', 1, 1],
        ['n.txt', '', 'n\n', 1, 0],
      ]);

      const reverted = await call('POST', `/session/${session}/revert`, {});
      expect(reverted.status).toBe(200);
      expect(reverted.body).toMatchObject({ id: session, revert: { files: ['m.txt', 'n.txt'] }, conflicts: [] });
      expect(read(join(folder, 'm.txt'))).toBe('m0\n');
      const unreverted = await call('POST', `/session/${session}/unrevert`);
      expect(unreverted.status).toBe(200);
      expect(unreverted.body.revert).toBeUndefined();
      expect(read(join(folder, 'n.txt'))).toBe('n\n');

      const forked = await call('POST', `/session/${session}/fork`, {});
      expect(forked.status).toBe(200);
      expect(forked.body).toMatchObject({ forkedFrom: { sessionID: session }, directory: folder });

      expect((await call('GET', '/session/ses_nope/diff')).status).toBe(404);
      const noMessage = await call('POST', `/session/${session}/revert`, { messageID: 'msg_nope' });
      expect(noMessage).toMatchObject({
        status: 404,
        body: { error: `Session ${session} has no message "msg_nope".` },
      });
      await env.store.setSessionStatus(session, 'busy', Date.now());
      const busy = await call('POST', `/session/${session}/revert`, {});
      expect(busy.status).toBe(409);
      expect(busy.body.error).toContain(`Session ${session} is busy`);
      await env.store.setSessionStatus(session, 'idle', Date.now());
    } finally {
      await server.close();
    }
  });
});
