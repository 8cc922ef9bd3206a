import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { render } from 'ink-testing-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientContext } from '../../../client/context.js';
import { loadProjectAgents } from '../../../client/services/project-agents.js';
import { App } from '../../../client/tui/components/app.js';
import { TuiServices } from '../../../client/tui/tui-services.js';
import type { AssistantMessage } from '../../../core/records/message.js';
import { request, session, textPart, userMessage } from '../../../testkit/store/store-records.js';
import { waitUntil } from '../../../testkit/wait.js';
import { freePort } from '../../../testkit/network/free-port.js';

// The screen as Ink draws it (ink-testing-library's terminal, 100 columns), on a real store with a
// stored session tree; no Temporal is reachable, so nothing here runs: the screen only reads.

let root: string;
let context: ClientContext;
let services: TuiServices;
const strip = (text: string | undefined) => (text ?? '').replace(/\x1b\[[0-9;]*m/g, ''); // eslint-disable-line no-control-regex

function answer(id: string, sessionID: string, parentID: string): AssistantMessage {
  return {
    id,
    sessionID,
    role: 'assistant',
    parentID,
    agent: 'build',
    model: 'openai/gpt-4o',
    step: 1,
    finish: 'stop',
    time: { created: 2, completed: 1_502 },
    tokens: { input: 1200, output: 34, reasoning: 0, cache: { read: 0, write: 0 } },
    cost: 0,
  };
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'loom-tui-app-'));
  const env = {
    ...process.env,
    LOOM_DATA_DIR: join(root, 'data'),
    LOOM_CONFIG_DIR: join(root, 'config'),
    LOOM_TEMPORAL_PORT: String(await freePort()),
    LOOM_MODEL: 'openai/gpt-4o',
  };
  context = await ClientContext.open(env, () => undefined);
  const { store } = context;
  await store.saveSession({ ...session('ses_a', 10), title: 'Fix the parser' });
  await store.saveSession({ ...session('ses_b', 11, 'ses_a'), agent: 'general', title: 'Look around' });
  await store.saveMessage(userMessage('msg_1'));
  await store.savePart(textPart('prt_1', 'msg_1', 'Why does the parser fail?'));
  await store.saveMessage(answer('msg_2', 'ses_a', 'msg_1'));
  await store.savePart(textPart('prt_2', 'msg_2', 'Because **the tokenizer** drops the last line.'));
  await store.saveMessage(userMessage('msg_3', 'ses_b'));
  await store.savePart(textPart('prt_3', 'msg_3', 'Look around the lexer.', 'ses_b'));
  await store.savePermissionRequest({
    ...request('per_1', 'pending', 'ses_a'),
    sessionID: 'ses_b',
    agent: 'general',
    title: 'bash · rm -rf build',
    patterns: ['rm -rf build'],
    always: ['rm *'],
  });
  const project = loadProjectAgents(root, env, env.LOOM_DATA_DIR);
  services = new TuiServices(context, root, project, undefined, 'default', undefined);
}, 30_000);

afterAll(async () => {
  await context?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('the terminal UI screen', () => {
  it('draws the session: its title, the prompt, the answer as markdown, the turn footer, the tokens', async () => {
    const screen = render(<App services={services} sessionId="ses_a" />);
    try {
      await waitUntil(async () => strip(screen.lastFrame()).includes('drops the last line'), 10_000);
      const frame = strip(screen.lastFrame());
      expect(frame).toContain('# Fix the parser');
      expect(frame).toContain('┃ Why does the parser fail?');
      expect(frame).toContain('Because the tokenizer drops the last line.');
      expect(frame).not.toContain('**');
      expect(frame).toContain('▣ build · openai/gpt-4o · 1.5s');
      await waitUntil(async () => strip(screen.lastFrame()).includes('1,234 tokens'), 10_000);
    } finally {
      screen.unmount();
    }
  });

  it("shows a subagent's waiting request in the root's screen, naming the subagent's session and agent", async () => {
    const screen = render(<App services={services} sessionId="ses_a" />);
    try {
      await waitUntil(async () => strip(screen.lastFrame()).includes('Permission required'), 10_000);
      const frame = strip(screen.lastFrame());
      expect(frame).toContain('bash · rm -rf build');
      expect(frame).toContain('asked by @general in subagent session ses_b');
      expect(frame).toContain('a allow once   A always (rm *)   r reject');
      screen.stdin.write('r');
      await waitUntil(async () => strip(screen.lastFrame()).includes('Tell the agent what to do instead'), 5_000);
      screen.stdin.write('use make clean');
      await waitUntil(async () => strip(screen.lastFrame()).includes('› use make clean'), 5_000);
      screen.stdin.write('\u001b');
      await waitUntil(async () => strip(screen.lastFrame()).includes('a allow once'), 5_000);
    } finally {
      screen.unmount();
    }
  });

  it('moves to the subagent with ctrl+x →, and back to its parent with ctrl+x ↑', async () => {
    await context.store.savePermissionRequest({ ...request('per_1', 'approved', 'ses_a'), sessionID: 'ses_b' });
    const screen = render(<App services={services} sessionId="ses_a" />);
    try {
      await waitUntil(async () => strip(screen.lastFrame()).includes('# Fix the parser'), 10_000);
      await waitUntil(async () => !strip(screen.lastFrame()).includes('Permission required'), 10_000);
      screen.stdin.write('\u0018');
      await waitUntil(async () => strip(screen.lastFrame()).includes('ctrl+x …'), 5_000);
      screen.stdin.write('\u001b[C');
      await waitUntil(async () => strip(screen.lastFrame()).includes('Subagent session @general · Look around'), 5_000);
      await waitUntil(async () => strip(screen.lastFrame()).includes('Look around the lexer.'), 5_000);
      screen.stdin.write('\u0018');
      screen.stdin.write('\u001b[A');
      await waitUntil(async () => strip(screen.lastFrame()).includes('# Fix the parser'), 5_000);
    } finally {
      screen.unmount();
    }
  });

  it('edits a multi-line draft: ctrl+j breaks the line, backspace deletes, both lines are drawn', async () => {
    await context.store.savePermissionRequest({ ...request('per_1', 'approved', 'ses_a'), sessionID: 'ses_b' });
    const screen = render(<App services={services} sessionId="ses_a" />);
    try {
      await waitUntil(async () => strip(screen.lastFrame()).includes('# Fix the parser'), 10_000);
      await waitUntil(async () => !strip(screen.lastFrame()).includes('Permission required'), 10_000);
      screen.stdin.write('first line');
      screen.stdin.write('\n');
      screen.stdin.write('second linee');
      screen.stdin.write('\u007f');
      // The cursor after the last character is an inverse space, kept when colours are on (CI=1).
      await waitUntil(async () => /^ {2}second line ?$/m.test(strip(screen.lastFrame())), 5_000);
      expect(strip(screen.lastFrame())).toContain('› first line');
    } finally {
      screen.unmount();
    }
  });
});
