import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../core/records/session.js';
import { launchChromium } from '../../testkit/browser/chromium.js';
import { createLoomTestEnv, SCRIPTED_MODEL, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { startTestServer, type TestServer } from '../../testkit/loom/serve-app.js';
import { openWebPage, type WebPage } from '../../testkit/browser/web-page.js';
import { waitUntil } from '../../testkit/wait.js';

// A server built as `loom serve --no-worker` builds it (testkit/loom/serve-app.ts runs no worker), on a
// task queue no worker polls until the test starts one.
let env: LoomTestEnv;
let server: TestServer | undefined;
let base: string;
let browser: Browser;
let page: Page;
let web: WebPage;

beforeAll(async () => {
  browser = await launchChromium();
  // A default model, for the web view's start box, which names none.
  env = await createLoomTestEnv({ config: { model: SCRIPTED_MODEL } });
  server = await startTestServer(env);
  base = server.base;
  web = await openWebPage(browser, 'web-projects');
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

const call = <T>(method: string, path: string, body?: unknown) => server!.request<T>(method, path, body);

type SessionWithWait = Session & { waiting?: { type: string; taskQueue?: string; message: string } };

describe('a session waiting for a worker', () => {
  it('is known at once, says it waits for a worker in the API and on the page, and runs when one comes', async () => {
    env.model.setScript([{ name: 'hello', when: { lastUser: 'Wait for me' }, reply: { text: 'A worker came.' } }]);
    const started = await call<{ id: string }>('POST', '/session', {
      prompt: 'Wait for me',
      model: SCRIPTED_MODEL,
      title: 'Patient session',
    });
    expect(started.status).toBe(201);
    const { id } = started.body;

    // Not "Unknown session": no worker has stored it yet, and the run's start tells what it is.
    const read = await call<SessionWithWait>('GET', `/session/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id, title: 'Patient session', status: 'busy', directory: env.project });
    expect(read.body.waiting).toMatchObject({ type: 'worker', taskQueue: env.taskQueue });
    expect(read.body.waiting?.message).toContain(`Waiting for a worker: none serves task queue "${env.taskQueue}"`);
    expect(read.body.waiting?.message).toContain('loom worker');
    expect((await call('GET', '/session/ses_nosuchsession')).status).toBe(404);

    await page.goto(`${base}/#/session/${id}`);
    const banner = page.locator('.wait-banner[data-waiting="worker"]');
    await banner.waitFor();
    expect(await banner.textContent()).toContain(`none serves task queue "${env.taskQueue}"`);
    await page.locator('.session-head h1').getByText('Patient session').waitFor();
    expect(await page.locator('.error').count()).toBe(0);
    await web.shot('1-waiting-for-a-worker');

    await env.worker();
    await page.locator('.markdown').getByText('A worker came.').waitFor();
    await banner.waitFor({ state: 'detached' });
    await page.locator('.session-head .status[data-status="idle"]').waitFor();
    const after = await call<SessionWithWait>('GET', `/session/${id}`);
    expect(after.body.status).toBe('idle');
    expect(after.body.waiting).toBeUndefined();
    await web.shot('2-ran');
    expect(web.problems).toEqual([]);
  });
});

describe('projects in the web view', () => {
  let other: string;
  const titles = { here: 'Session of this project', there: 'Session of the other project' };

  beforeAll(async () => {
    env.model.setScript([{ name: 'any', when: { lastUser: /./ }, reply: { text: 'Done.' } }]);
    // The worker of the test above serves these.
    other = join(mkdtempSync(join(tmpdir(), 'loom-other-')), 'other-project');
    mkdirSync(other);
    for (const [title, directory] of [
      [titles.here, undefined],
      [titles.there, other],
    ] as const) {
      const { body } = await call<{ id: string }>('POST', '/session', {
        prompt: `Work on ${title}`,
        model: SCRIPTED_MODEL,
        title,
        ...(directory ? { directory } : {}),
      });
      await waitUntil(async () => (await env.store.getSession(body.id))?.status === 'idle', 30_000);
    }
  });

  it("lists the projects and one project's sessions in the API", async () => {
    const projects = await call<{ directory: string; sessions: number; current: boolean }[]>('GET', '/project');
    expect(projects.body[0]).toMatchObject({ directory: env.project, current: true });
    expect(projects.body.find((project) => project.directory === other)).toMatchObject({ sessions: 1, current: false });
    const there = await call<Session[]>('GET', `/session?directory=${encodeURIComponent(other)}`);
    expect(there.body.map((session) => session.title)).toEqual([titles.there]);
    const all = await call<Session[]>('GET', '/session');
    expect(all.body.map((session) => session.title)).toEqual(expect.arrayContaining([titles.here, titles.there]));
  });

  it("shows the server's project by default, another on choice, and all with their folders", async () => {
    await page.goto(`${base}/`);
    await page.getByRole('link', { name: titles.here }).waitFor();
    expect(await page.getByRole('link', { name: titles.there }).count()).toBe(0);
    expect(await page.locator('[data-starts-in]').textContent()).toBe(`in ${env.project}`);
    expect(await page.locator('th', { hasText: 'Folder' }).count()).toBe(0);
    await web.shot('3-this-project');

    const selector = page.getByLabel('Project');
    await selector.selectOption(other);
    await page.getByRole('link', { name: titles.there }).waitFor();
    await page.getByRole('link', { name: titles.here }).waitFor({ state: 'detached' });
    expect(await page.locator('[data-starts-in]').textContent()).toBe(`in ${other}`);

    // The start box starts in the project shown.
    await page.getByPlaceholder('Ask Loom to do something in this project…').fill('Another one there');
    await page.getByRole('button', { name: 'Start session' }).click();
    await page.locator('.session-head .meta').getByText(other, { exact: false }).waitFor();
    await page.goBack();

    await selector.selectOption('*');
    await page.getByRole('link', { name: titles.here }).waitFor();
    await page.getByRole('link', { name: titles.there }).waitFor();
    await page.locator('th', { hasText: 'Folder' }).waitFor();
    const folderOf = (title: string) =>
      page
        .locator('tr', { has: page.getByRole('link', { name: title }) })
        .locator('[data-folder]')
        .textContent();
    expect(await folderOf(titles.here)).toBe(env.project);
    expect(await folderOf(titles.there)).toBe(other);
    await web.shot('4-all-projects');
    expect(web.problems).toEqual([]);
  });
});
