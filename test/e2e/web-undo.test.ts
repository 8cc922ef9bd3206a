import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../testkit/browser/chromium.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { agentDoes, prompt, write } from '../../testkit/model/scripted-agent.js';
import { startTestServer, type TestServer } from '../../testkit/loom/serve-app.js';
import { openWebPage, type WebPage } from '../../testkit/browser/web-page.js';

const TOKEN = 'web-undo-token';

let env: LoomTestEnv;
let server: TestServer | undefined;
let browser: Browser;
let page: Page;
let web: WebPage;

beforeAll(async () => {
  browser = await launchChromium();
  env = await createLoomTestEnv({ rules: [agentDoes], config: { auto_title: false } });
  await env.worker();
  server = await startTestServer(env, { token: TOKEN });
  web = await openWebPage(browser, 'web-undo');
  page = web.page;
}, 20 * 60_000);
afterEach(async ({ task }) => {
  if (task.result?.state === 'fail') await web?.showFailure(task.name);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await env?.close();
});

const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);

/** One turn of a session (a new one unless `sessionId`) in `directory`; resolves once it finished. */
async function turn(directory: string, text: string, sessionId?: string): Promise<string> {
  const run = await env.start(text, { directory, ...(sessionId ? { sessionId } : {}) });
  expect(await run.result()).toMatchObject({ status: 'completed' });
  return run.sessionId;
}

describe('the web view: undo, redo, fork and the diff of a step', () => {
  it("shows a step's diff, and undoes and redoes a turn on disk, a person's edit left alone until asked", async () => {
    const folder = join(env.project, '..', 'web-undo');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'keep.txt'), 'keep\n');
    const notes = join(folder, 'notes.md');
    const todo = join(folder, 'todo.md');
    // The file's text is the page's to escape: a diff is never HTML.
    const session = await turn(
      folder,
      prompt(write('notes.md', 'first line\n<img src=x onerror="window.__pwned=1">\n')),
    );
    await turn(folder, prompt(write('todo.md', 'buy milk\n')), session);

    await page.goto(`${server!.base}/#/session/${session}?token=${TOKEN}`);
    const turns = page.locator('.transcript > .message.user');
    await turns.nth(1).waitFor();

    // The first turn's step: one file changed, its diff on demand, added lines marked as added.
    const step = page.locator('[data-patch]').first();
    await step.getByText('1 file changed').waitFor();
    expect(await step.locator('.changed-files li').allTextContents()).toEqual(['notes.md']);
    await step.getByRole('button', { name: 'Show diff' }).click();
    const added = step.locator('.file-diff[data-file="notes.md"] .diff .add');
    await added.first().waitFor();
    expect(await added.allTextContents()).toEqual(['+first line', '+<img src=x onerror="window.__pwned=1">']);
    await step.locator('.file-head').getByText('added').waitFor();
    expect(await page.locator('.transcript img').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    await web.shot('1-step-diff');

    // Undo the second turn: its file goes, the first turn's stays; its messages fold under the banner.
    await turns.nth(1).getByRole('button', { name: 'Undo' }).click();
    const banner = page.locator('.revert-banner');
    await banner.getByText('Reverted: hidden from the model').waitFor();
    expect(read(todo)).toBeUndefined();
    expect(read(notes)).toContain('first line');
    expect(await page.locator('.files-outcome').innerText()).toContain('Undone: put back todo.md.');
    expect(await page.locator('.transcript > .message').count()).toBe(3);
    expect(await page.locator('.reverted-messages .message').count()).toBe(3);
    expect(await page.locator('.reverted-messages .turn-actions').count()).toBe(0);
    await web.shot('2-undone');

    // Redo brings the file and the messages back.
    await banner.getByRole('button', { name: 'Redo' }).click();
    await banner.waitFor({ state: 'detached' });
    expect(read(todo)).toBe('buy milk\n');
    expect(await page.locator('.files-outcome[data-action="unrevert"]').innerText()).toContain(
      'Redone: put back todo.md.',
    );
    expect(await page.locator('.transcript > .message').count()).toBe(6);

    // A person's edit since is left alone, until "Undo anyway"; Redo then gives it back.
    writeFileSync(todo, 'buy oat milk\n');
    await turns.nth(1).getByRole('button', { name: 'Undo' }).click();
    const conflicts = page.locator('.files-outcome .conflicts');
    await conflicts.getByText('Left alone, changed since by someone else').waitFor();
    expect(await conflicts.locator('code').allTextContents()).toEqual(['todo.md']);
    expect(read(todo)).toBe('buy oat milk\n');
    await web.shot('3-conflict');
    await conflicts.getByRole('button', { name: 'Undo anyway' }).click();
    await conflicts.waitFor({ state: 'detached' });
    expect(read(todo)).toBeUndefined();
    await banner.getByRole('button', { name: 'Redo' }).click();
    await banner.waitFor({ state: 'detached' });
    expect(read(todo)).toBe('buy oat milk\n');
    expect(web.problems).toEqual([]);
  });

  it('disables the buttons while the session is busy, shows what the server refused, and drops an undone turn on the next prompt', async () => {
    web.problems.length = 0;
    const folder = join(env.project, '..', 'web-busy');
    mkdirSync(folder, { recursive: true });
    const session = await turn(folder, prompt(write('a.txt', 'a\n')));
    await page.goto(`${server!.base}/#/session/${session}`);
    const undo = page.locator('.transcript > .message.user').first().getByRole('button', { name: 'Undo' });
    await undo.waitFor();

    await env.store.setSessionStatus(session, 'busy', Date.now());
    await page.locator('.session-head .status[data-status="busy"]').waitFor();
    expect(await undo.isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Fork from here' }).isDisabled()).toBe(true);
    await env.store.setSessionStatus(session, 'idle', Date.now());
    await page.locator('.session-head .status[data-status="idle"]').waitFor();
    expect(await undo.isDisabled()).toBe(false);

    // A refusal the page could not foresee (another client's run started meanwhile) reads as the server wrote it.
    const refusal = `Session ${session} is busy: revert it once its run has finished (or \`loom cancel ${session}\`).`;
    await page.route('**/revert', (route) =>
      route.fulfill({ status: 409, contentType: 'application/json', body: JSON.stringify({ error: refusal }) }),
    );
    await undo.click();
    await page.locator('.message.user [role="alert"]').getByText(refusal).waitFor();
    await page.unroute('**/revert');
    expect(read(join(folder, 'a.txt'))).toBe('a\n');

    // Undone for real, then the next prompt drops the hidden messages for good.
    await undo.click();
    const banner = page.locator('.revert-banner');
    await banner.waitFor();
    expect(read(join(folder, 'a.txt'))).toBeUndefined();
    await page.getByLabel('Prompt').fill('Thanks');
    await page.getByRole('button', { name: 'Send' }).click();
    await banner.waitFor({ state: 'detached' });
    await page.locator('.transcript > .message.assistant').getByText('done').waitFor();
    expect(await page.locator('.transcript .message').count()).toBe(2);
    expect(web.problems.filter((problem) => !problem.includes('status of 409'))).toEqual([]);
  });

  it('forks from a turn into a new session page', async () => {
    web.problems.length = 0;
    const folder = join(env.project, '..', 'web-fork');
    mkdirSync(folder, { recursive: true });
    const session = await turn(folder, prompt(write('one.txt', '1\n')));
    await turn(folder, prompt(write('two.txt', '2\n')), session);
    await page.goto(`${server!.base}/#/session/${session}`);
    const turns = page.locator('.transcript > .message.user');
    await turns.nth(1).getByRole('button', { name: 'Fork from here' }).click();

    await page.waitForURL((url) => !url.hash.includes(session) && url.hash.startsWith('#/session/'));
    const forkId = decodeURIComponent(new URL(page.url()).hash.split('/')[2]!);
    await page
      .locator('.session-head h1')
      .getByText(/\(fork\)$/)
      .waitFor();
    // The fork holds the history before that turn: the first turn only.
    await page.locator('.transcript > .message').nth(2).waitFor();
    expect(await page.locator('.transcript > .message').count()).toBe(3);
    expect((await env.store.getSession(forkId))?.forkedFrom).toMatchObject({ sessionID: session });
    await web.shot('4-fork');
    expect(web.problems).toEqual([]);
  });
});
