// What undo-fork.test.ts's reverts take and lead to: turn numbers, snapshots off, the next prompt,
// loom fork and the server's routes; a file of its own so that the two run side by side.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prompt, put, write } from '../../testkit/model/scripted-agent.js';
import type { LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { parseJson } from '../../testkit/loom/run-loom.js';
import { startTestServer } from '../../testkit/loom/serve-app.js';
import { createUndoEnv, undoHelpers } from '../../testkit/loom/undo-project.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createUndoEnv();
});
afterAll(() => env?.close());

const { project, turn, loom, read, userMessages } = undoHelpers(() => env);

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
