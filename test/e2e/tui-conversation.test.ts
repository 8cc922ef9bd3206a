import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { openLoomTui } from '../../testkit/loom/tui.js';
import type { TerminalSession } from '../../testkit/terminal/terminal-session.js';
import { waitUntil } from '../../testkit/wait.js';
import { freePort } from '../../testkit/network/free-port.js';

// The terminal UI as a person meets it: `loom` in a real terminal (tmux), keys typed, the screen read.

let env: LoomTestEnv;
const open: TerminalSession[] = [];

beforeAll(async () => {
  env = await createLoomTestEnv({ files: { 'README.md': '# Demo\n' } });
}, 60_000);
afterEach(async () => {
  await Promise.all(open.splice(0).map((terminal) => terminal.close()));
});
afterAll(() => env?.close());

async function tui(args?: string[], extraEnv?: NodeJS.ProcessEnv): Promise<TerminalSession> {
  const terminal = await openLoomTui(env, args, { env: extraEnv });
  open.push(terminal);
  return terminal;
}

async function latestRoot() {
  const [session] = await env.store.listSessions({ roots: true, limit: 1 });
  return session;
}

describe('the terminal UI', () => {
  it('opens on `loom` alone, sends a prompt, streams the answer, and takes the next prompt in the same session', async () => {
    env.model.setScript([
      {
        name: 'hello',
        when: { lastUser: 'Say hello', lastRole: 'user' },
        reply: { text: 'Hello **there**, from the scripted model.', chunkDelayMs: 40, chunkSize: 6 },
      },
      { name: 'again', when: { lastUser: 'And again', lastRole: 'user' }, reply: { text: 'Hello once more.' } },
    ]);
    const terminal = await tui([]);
    await terminal.waitFor('Ask anything', { timeoutMs: 30_000 });
    await terminal.type('Say hello');
    await terminal.press('Enter');
    await terminal.waitFor(/Hello .*there.*, from the scripted model\./, { timeoutMs: 60_000 });
    const session = await latestRoot();
    await terminal.waitFor(session.id);
    await terminal.waitFor('▣ build');
    await terminal.type('And again');
    await terminal.press('Enter');
    await terminal.waitFor('Hello once more.', { timeoutMs: 30_000 });
    const sessions = await env.store.listSessions({ roots: true });
    expect(sessions.filter((candidate) => candidate.id === session.id)).toHaveLength(1);
    expect((await env.store.messages(session.id)).filter((message) => message.info.role === 'user')).toHaveLength(2);
  }, 120_000);

  it('keeps the same session in step in two terminals: a prompt sent from one is answered in both', async () => {
    env.model.setScript([
      { name: 'first', when: { lastUser: 'First from A' }, reply: { text: 'Answer to A.' } },
      { name: 'second', when: { lastUser: 'Then from B' }, reply: { text: 'Answer to B.', chunkDelayMs: 30 } },
    ]);
    const a = await tui();
    await a.waitFor('Ask anything', { timeoutMs: 30_000 });
    await a.type('First from A');
    await a.press('Enter');
    await a.waitFor('Answer to A.', { timeoutMs: 60_000 });
    const session = await latestRoot();
    const b = await tui(['tui', session.id]);
    await b.waitFor('Answer to A.', { timeoutMs: 30_000 });
    await b.type('Then from B');
    await b.press('Enter');
    await b.waitFor('Answer to B.', { timeoutMs: 60_000 });
    const seenByA = await a.waitFor('Answer to B.', { timeoutMs: 10_000 });
    expect(seenByA).toContain('Then from B');
  }, 120_000);

  it('switches the agent of the next prompt with Tab', async () => {
    env.model.setScript([{ name: 'plan', when: { lastUser: 'Plan the work' }, reply: { text: 'A plan.' } }]);
    const terminal = await tui();
    await terminal.waitFor('Ask anything', { timeoutMs: 30_000 });
    await terminal.press('Tab');
    await terminal.waitFor('Agent: plan');
    await terminal.type('Plan the work');
    await terminal.press('Enter');
    await terminal.waitFor('A plan.', { timeoutMs: 60_000 });
    const session = await latestRoot();
    expect(session.agent).toBe('plan');
    const [user] = await env.store.messages(session.id);
    expect(user.info.agent).toBe('plan');
  }, 120_000);

  it('undoes a turn with /undo: its answer leaves the screen and its file change is put back', async () => {
    env.model.setScript([
      {
        name: 'write',
        when: { lastUser: 'Write notes', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'write', args: { filePath: 'notes.md', content: 'kept notes\n' } }] },
      },
      { name: 'written', when: { lastUser: 'Write notes', lastRole: 'tool' }, reply: { text: 'Notes written.' } },
    ]);
    const terminal = await tui();
    await terminal.waitFor('Ask anything', { timeoutMs: 30_000 });
    await terminal.type('Write notes');
    await terminal.press('Enter');
    await terminal.waitFor('Notes written.', { timeoutMs: 60_000 });
    await terminal.type('/undo');
    await terminal.press('Enter');
    const screen = await terminal.waitFor('1 turn undone', { timeoutMs: 30_000 });
    expect(screen).not.toContain('Notes written.');
    const { existsSync } = await import('node:fs');
    const { join } = await import('node:path');
    await waitUntil(async () => !existsSync(join(env.project, 'notes.md')), 10_000);
    const session = await latestRoot();
    expect(session.revert).toBeDefined();
  }, 120_000);

  it('leaves the run going when it quits mid-turn, says how to reopen it, and `loom tui <id>` shows the answer arriving', async () => {
    const long = Array.from({ length: 30 }, (_, index) => `word${index}`).join(' ');
    env.model.setScript([
      {
        name: 'slow',
        when: { lastUser: 'Take your time', lastRole: 'user' },
        reply: { text: `${long} the end.`, chunkDelayMs: 250, chunkSize: 6 },
      },
    ]);
    const first = await tui();
    await first.waitFor('Ask anything', { timeoutMs: 30_000 });
    await first.type('Take your time');
    await first.press('Enter');
    await first.waitFor('working', { timeoutMs: 30_000 });
    await first.waitFor('word1');
    await first.press('C-d');
    const left = await first.waitFor(/Reopen it: loom tui (ses_\w+)/, { timeoutMs: 20_000 });
    expect(left).toContain('is still running');
    const sessionId = /Reopen it: loom tui (ses_\w+)/.exec(left)![1];
    expect((await env.store.getSession(sessionId))?.status).toBe('busy');

    const second = await tui(['tui', sessionId]);
    await second.waitFor('Take your time', { timeoutMs: 30_000 });
    await second.waitFor('the end.', { timeoutMs: 90_000 });
    await waitUntil(async () => (await env.store.getSession(sessionId))?.status === 'idle', 20_000);
  }, 180_000);

  it('takes a 1 MB paste whole, and sends every character of it', async () => {
    env.model.setScript([{ name: 'long', when: { lastUser: /END-OF-PASTE/ }, reply: { text: 'Read it all.' } }]);
    const line = 'the quick brown fox jumps over the lazy dog 0123456789 ';
    const pasted = `${Array.from({ length: Math.ceil(1_000_000 / (line.length + 1)) }, () => line).join('\n')}\nEND-OF-PASTE`;
    const terminal = await tui();
    await terminal.waitFor('Ask anything', { timeoutMs: 30_000 });
    await terminal.paste(pasted);
    await terminal.waitFor('END-OF-PASTE', { timeoutMs: 30_000 });
    await terminal.press('Enter');
    await terminal.waitFor('Read it all.', { timeoutMs: 60_000 });
    const session = await latestRoot();
    const [user] = await env.store.messages(session.id);
    const text = user.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
    expect(text.length).toBe(pasted.length);
    expect(text).toBe(pasted);
  }, 120_000);

  it('refuses a prompt over the size limit in the prompt box, naming the limit, and keeps the draft', async () => {
    const terminal = await tui(['tui'], { LOOM_MAX_PROMPT_BYTES: '1000' });
    await terminal.waitFor('Ask anything', { timeoutMs: 30_000 });
    const before = (await env.store.listSessions({ roots: true })).length;
    await terminal.paste(`${'x'.repeat(1500)} LAST-WORDS`);
    await terminal.waitFor('LAST-WORDS');
    await terminal.press('Enter');
    const screen = await terminal.waitFor('over the limit of 1000 B', { timeoutMs: 30_000 });
    expect(screen).toContain('LAST-WORDS');
    expect((await env.store.listSessions({ roots: true })).length).toBe(before);
  }, 60_000);

  it('leaves scripts alone: outside a terminal `loom` prints its help and `loom tui` says it needs one', async () => {
    const bare = await env.loom([]);
    expect(`${bare.stdout}${bare.stderr}`).toContain('Usage: loom');
    const tuiHere = await env.loom(['tui']);
    expect(tuiHere.code).not.toBe(0);
    expect(tuiHere.stderr).toContain('loom tui needs a terminal');
  }, 60_000);

  it('says a refused Temporal connection in one line on the screen, and stays usable', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    const terminal = await tui(['tui'], { TEMPORAL_ADDRESS: address });
    const screen = await terminal.waitFor(address, { timeoutMs: 60_000 });
    expect(screen).toContain('Ask anything');
    await terminal.type('hello?');
    await terminal.waitFor('› hello?');
  }, 90_000);

  it('says an unknown session in the screen, in the CLI’s words, and stays usable', async () => {
    const terminal = await tui(['tui', 'ses_nosuchsession']);
    await terminal.waitFor('Unknown session "ses_nosuchsession"', { timeoutMs: 30_000 });
    await terminal.press('C-x', 'n');
    await terminal.waitFor('Ask anything to start a session');
  }, 60_000);

  it('asks for a bigger terminal when it is too small, and draws again once resized', async () => {
    const terminal = await tui();
    await terminal.waitFor('Ask anything', { timeoutMs: 30_000 });
    await terminal.resize(40, 8);
    await terminal.waitFor('Terminal too small (40×8)');
    await terminal.resize(100, 30);
    await terminal.waitFor('Ask anything');
  }, 60_000);
});
