import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../testkit/browser/chromium.js';
import { createLoomTestEnv, SCRIPTED_MODEL, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { startTestServer, type TestServer } from '../../testkit/loom/serve-app.js';
import { openWebPage, type WebPage } from '../../testkit/browser/web-page.js';
import { waitUntil } from '../../testkit/wait.js';

const TOKEN = 'web-view-token';

let env: LoomTestEnv;
let server: TestServer | undefined;
let base: string;
let browser: Browser;
let page: Page;
let web: WebPage;

// A fresh machine installs Chromium first (apt-get), which can take minutes.
beforeAll(async () => {
  browser = await launchChromium();
  env = await createLoomTestEnv({ config: { permission: { bash: { '*': 'ask' } } } });
  await env.worker();
  server = await startTestServer(env, { token: TOKEN });
  base = server.base;
  web = await openWebPage(browser, 'web-view');
  page = web.page;
}, 20 * 60_000);
// A failed step leaves what the page showed: a screenshot in the temp folder, and its text in the log.
afterEach(async ({ task }) => {
  if (task.result?.state === 'fail') await web?.showFailure(task.name);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await env?.close();
});

const call = <T>(method: string, path: string, body?: unknown) => server!.ok<T>(method, path, body);

describe('the web view', () => {
  it('serves the page without a token, with a strict CSP, and only allow-listed library files', async () => {
    const index = await fetch(`${base}/`);
    expect(index.status).toBe(200);
    expect(index.headers.get('content-type')).toContain('text/html');
    expect(index.headers.get('content-security-policy')).toMatch(/script-src 'self' 'sha256-[^']+'; /);
    const lib = await fetch(`${base}/web/lib/preact.js`);
    expect(lib.headers.get('content-type')).toContain('text/javascript');
    expect((await fetch(`${base}/web/lib/%2e%2e%2fpackage.json`)).status).toBe(404);
    expect((await fetch(`${base}/web/..%2f..%2fpackage.json`)).status).toBe(404);
    expect((await fetch(`${base}/session`)).status).toBe(401);
    expect((await fetch(`${base}/config/web`)).status).toBe(401);
  });

  it('follows a session and its subagent live, answers the approval, and continues the session', async () => {
    env.model.setScript([
      {
        name: 'root',
        when: { lastUser: 'Build it in a helper', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Build', prompt: 'Run the build.', subagent_type: 'general' } },
          ],
        },
      },
      {
        name: 'child',
        when: { lastUser: 'Run the build.', lastRole: 'user' },
        reply: {
          toolCalls: [{ name: 'bash', args: { command: 'echo compiling; sleep 3; echo built', description: 'Build' } }],
        },
      },
      { name: 'child-done', when: { lastUser: 'Run the build.', lastRole: 'tool' }, reply: { text: 'built' } },
      {
        name: 'root-done',
        when: { lastUser: 'Build it in a helper', lastRole: 'tool' },
        reply: { text: 'The helper **built** it.' },
      },
      // A prompt-injected model's answer: the page must render it as inert text.
      {
        name: 'again',
        when: { lastUser: 'And now?' },
        reply: {
          text: 'Second answer. <img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> [link](javascript:window.__pwned=3)',
        },
      },
    ]);
    const { id } = await call<{ id: string }>('POST', '/session', {
      prompt: 'Build it in a helper',
      model: SCRIPTED_MODEL,
      title: 'Web view build',
    });

    // The token comes in the fragment and leaves the address bar.
    await page.goto(`${base}/#token=${TOKEN}`);
    const row = page.locator(`tr[data-session="${id}"]`);
    await row.getByText('Web view build').waitFor();
    expect(page.url()).not.toContain(TOKEN);
    await page.locator('.live.on').waitFor();
    await web.shot('0-sessions');

    await row.getByRole('link', { name: 'Web view build' }).click();
    const tree = page.locator('.tree');
    await tree.locator('[data-tree-node]').nth(1).waitFor();
    await tree.getByText('Build (@general subagent)').waitFor();
    await page.locator('[data-tool="task"]').waitFor();
    await page.locator('.approvals .request strong').getByText('bash · echo compiling').waitFor();
    await tree.locator('[data-tree-node] [data-tree-node] .status[data-status="waiting-approval"]').waitFor();
    await web.shot('1-root-waiting');

    // Down to the child from the tree: its bash call waits for the approval.
    await tree.getByRole('link', { name: 'Build (@general subagent)' }).click();
    const bash = page.locator('[data-tool="bash"]');
    await bash.getByText('$ echo compiling; sleep 3; echo built').waitFor();
    await page.locator('.session-head .parent').waitFor();
    await web.shot('2-child-approval');

    // Output streams in while the command runs, then the call completes.
    const running = '[data-tool="bash"][data-state="running"] .output';
    const streamed = page.waitForFunction(
      (selector) => (globalThis as any).document.querySelector(selector)?.textContent === 'compiling\n',
      running,
      { polling: 50 },
    );
    await page.getByRole('button', { name: 'Allow once' }).click();
    await page.locator('.approvals').waitFor({ state: 'detached' });
    await streamed;
    // A finished call folds to its summary line; opening it shows the whole output.
    await page.locator('[data-tool="bash"][data-state="completed"] summary').click();
    expect(await bash.locator('.output').textContent()).toBe('compiling\nbuilt');
    await page.locator('.markdown').getByText('built').waitFor();

    // Back up to the parent: it finished with the child's result.
    await page.locator('.session-head .parent').click();
    await page.locator('.markdown strong').getByText('built').waitFor();
    await page.locator(`.session-head .status[data-status="idle"]`).waitFor();
    await page.locator('[data-tool="task"][data-state="completed"]').waitFor();
    // The child's call reads as the CLI says it (`bash echo compiling; …`), not by its result's title.
    await page.locator('[data-tool="task"] summary').click();
    await page.locator('[data-tool="task"] .steps li').getByText('bash echo compiling; sleep 3; echo built').waitFor();
    await web.shot('3-root-done');
    // The task call leads to the child as well.
    await page.locator('[data-tool="task"] .open-child').click();
    await page.locator('.session-head h1').getByText('Build (@general subagent)').waitFor();
    await page.locator('.session-head .parent').click();
    await page.locator('.session-head h1').getByText('Web view build').waitFor();
    expect(web.problems).toEqual([]);

    // The injected answer below makes the browser report the blocked handler; that is the CSP working.
    await page.getByLabel('Prompt').fill('And now?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.markdown').getByText('Second answer.').waitFor();
    await page.locator(`.session-head .status[data-status="idle"]`).waitFor();
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('.markdown script, .markdown [onerror], .markdown a[href^="javascript:"]').count()).toBe(
      0,
    );
    expect(await page.locator('a.temporal').first().getAttribute('href')).toBe(
      `http://localhost:8233/namespaces/default/workflows/${id}`,
    );
    await web.shot('4-continued');
  });

  it('opened while a subagent waits for an approval: says so on the list, the pill and the tree; the subagent page is no chat', async () => {
    web.problems.length = 0;
    env.model.setScript([
      {
        name: 'root',
        when: { lastUser: 'Ask a helper to list', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'List', prompt: 'List the files.', subagent_type: 'general' } },
          ],
        },
      },
      {
        name: 'child',
        when: { lastUser: 'List the files.', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'ls', description: 'List' } }] },
      },
      { name: 'child-done', when: { lastUser: 'List the files.', lastRole: 'tool' }, reply: { text: 'listed' } },
      { name: 'root-done', when: { lastUser: 'Ask a helper to list', lastRole: 'tool' }, reply: { text: 'done' } },
      { name: 'idle', when: { lastUser: 'Nothing to ask' }, reply: { text: 'ok' } },
    ]);
    const idle = await call<{ id: string }>('POST', '/session', { prompt: 'Nothing to ask', model: SCRIPTED_MODEL });
    await waitUntil(async () => (await env.store.getSession(idle.id))?.status === 'idle', 30_000);
    const { id } = await call<{ id: string }>('POST', '/session', {
      prompt: 'Ask a helper to list',
      model: SCRIPTED_MODEL,
      title: 'Waits for a person',
    });
    await waitUntil(async () => (await env.store.permissionRequests({ status: 'pending' })).length > 0, 30_000);

    // A fresh page, opened during the wait: no event has told it yet.
    const fresh = await openWebPage(browser, 'web-view-waiting');
    try {
      await fresh.page.goto(`${base}/#token=${TOKEN}`);
      const row = fresh.page.locator(`tr[data-session="${id}"]`);
      await row.locator('.status[data-status="waiting-approval"]').waitFor();
      // It stands out, above the sessions that need nobody.
      expect(await row.getAttribute('class')).toContain('needs-person');
      expect(await fresh.page.locator('tr[data-session]').first().getAttribute('data-session')).toBe(id);
      const background = (selector: string) =>
        fresh.page
          .locator(selector)
          .locator('td')
          .first()
          .evaluate((element) => (globalThis as any).getComputedStyle(element).backgroundColor);
      expect(await background(`tr[data-session="${id}"]`)).not.toBe(await background(`tr[data-session="${idle.id}"]`));
      await fresh.shot('waiting-list');

      await fresh.page.goto(`${base}/#/session/${id}`);
      await fresh.page.locator('.session-head .status[data-status="waiting-approval"]').waitFor();
      const child = fresh.page.locator('.tree [data-tree-node] [data-tree-node]');
      await child.locator('.status[data-status="waiting-approval"]').waitFor();
      // The person's own session: their prompt, with Undo and Fork.
      await fresh.page.locator('.message.user [data-author]').getByText('You', { exact: true }).waitFor();

      // The subagent's prompt came from its parent agent: no Undo, Fork or Send there.
      await child.getByRole('link').first().click();
      await fresh.page.locator('.session-head .parent').waitFor();
      await fresh.page.locator('.session-head .status[data-status="waiting-approval"]').waitFor();
      await fresh.page
        .locator('.message.user [data-author]')
        .getByText('build (parent agent)', { exact: true })
        .waitFor();
      await fresh.page.locator('[data-subagent-note]').waitFor();
      expect(await fresh.page.getByRole('button', { name: 'Undo' }).count()).toBe(0);
      expect(await fresh.page.getByRole('button', { name: 'Fork from here' }).count()).toBe(0);
      expect(await fresh.page.getByRole('button', { name: /^(Send|Queue)$/ }).count()).toBe(0);
      await fresh.shot('subagent-page');
      await fresh.page.getByRole('button', { name: 'Allow once' }).click();
      await fresh.page.locator('.markdown').getByText('listed').waitFor();
      expect(fresh.problems).toEqual([]);
    } finally {
      await fresh.page.close();
    }
    await waitUntil(async () => (await env.store.getSession(id))?.status === 'idle', 30_000);
  });

  it('rejects with feedback the agent sees, and cancels a busy session', async () => {
    web.problems.length = 0;
    env.model.setScript([
      {
        name: 'ask',
        when: { lastUser: 'Check the date', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'date', description: 'Date' } }] },
      },
      {
        name: 'told',
        when: { lastUser: 'Check the date', lastRole: 'tool' },
        reply: (r) => ({ text: `Heard: ${String(r.messages.at(-1).content)}` }),
      },
      { name: 'slow', when: { lastUser: 'Take your time' }, reply: { text: 'Too late.', delayMs: 20_000 } },
    ]);
    const asked = await call<{ id: string }>('POST', '/session', { prompt: 'Check the date', model: SCRIPTED_MODEL });
    // Opened at once: the page waits for a session that is not stored yet. The token may follow a route.
    await page.goto(`${base}/#/session/${asked.id}?token=${TOKEN}`);
    await page.getByRole('button', { name: 'Reject with feedback…' }).click();
    await page.getByPlaceholder('What the agent should do instead').fill('Use the clock on the wall');
    await page.getByRole('button', { name: 'Send feedback' }).click();
    await page.locator('.markdown').getByText('Use the clock on the wall').waitFor();
    await page.locator('[data-tool="bash"][data-state="error"]').waitFor();

    const slow = await call<{ id: string }>('POST', '/session', { prompt: 'Take your time', model: SCRIPTED_MODEL });
    await page.goto(`${base}/#/session/${slow.id}`);
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('.session-head .status[data-status="cancelled"]').waitFor();
    // The browser logs the reads of the session that was not stored yet; nothing else went wrong.
    expect(web.problems.filter((problem) => !problem.includes('status of 404'))).toEqual([]);
  });

  it('shows a batch with its progress and results', async () => {
    web.problems.length = 0;
    env.model.setScript([
      { name: 'task', when: { lastUser: /^Check part (one|two)$/ }, reply: { text: 'Checked.', delayMs: 1500 } },
    ]);
    const { id } = await call<{ id: string }>('POST', '/batch', {
      tasks: [
        { description: 'Part one', prompt: 'Check part one' },
        { description: 'Part two', prompt: 'Check part two' },
      ],
      model: SCRIPTED_MODEL,
      concurrency: 1,
    });
    await page.getByRole('link', { name: 'Batches' }).click();
    await page.locator(`[data-batch="${id}"]`).waitFor();
    await page.locator(`[data-batch="${id}"] a`).first().click();
    await page.locator('.batch-page .progress').getByText('1/2').waitFor();
    await page.locator('.batch-page .progress').getByText('2/2').waitFor();
    await page.locator('tr[data-task="1"]').getByText('Checked.').waitFor();
    await page.locator('.batch-page .meta .status[data-status="completed"]').waitFor();
    await web.shot('5-batch');
    expect(web.problems).toEqual([]);
  });
});
