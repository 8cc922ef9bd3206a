import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { copyFileSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../../worker/bundle.js';
import { launchChromium } from '../../testkit/browser/chromium.js';
import { freePort } from '../../testkit/network/free-port.js';
import { createLoomTestEnv, SCRIPTED_MODEL, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { startTestServer, type TestServer } from '../../testkit/loom/serve-app.js';
import { openWebPage, type WebPage } from '../../testkit/browser/web-page.js';
import { startTemporalServer } from '../../testkit/temporal/temporal-server.js';
import { waitUntil } from '../../testkit/wait.js';

// The web view's details (how a call, a heading, a subagent's steps and a batch's outcome read), and
// the screenshots docs/server.md shows. `LOOM_UPDATE_SCREENSHOTS=1` writes them to docs/images/.

const TOKEN = 'web-view-details-token';
const UPDATE_SCREENSHOTS = process.env.LOOM_UPDATE_SCREENSHOTS === '1';
const DOC_IMAGES = join(PROJECT_ROOT, 'docs', 'images');
/** The most a screenshot in the docs may weigh. */
const MAX_SHOT_BYTES = 150_000;
const WIDTH = 1100;

let temporal: TestWorkflowEnvironment;
let uiPort: number;
let env: LoomTestEnv;
let server: TestServer | undefined;
let base: string;
let browser: Browser;
let page: Page;
let web: WebPage;

// A dev server of its own, with the Temporal UI on (the shared one runs without it), for the screenshot of a run.
beforeAll(async () => {
  browser = await launchChromium();
  uiPort = await freePort();
  temporal = await startTemporalServer({ binary: inject('temporalBinary'), uiPort });
  env = await createLoomTestEnv({
    address: temporal.address,
    config: { permission: { bash: { '*': 'ask', 'node *': 'allow' } } },
  });
  env.env.LOOM_TEMPORAL_UI_PORT = String(uiPort);
  await env.worker();
  server = await startTestServer(env, { token: TOKEN });
  base = server.base;
  web = await openWebPage(browser, 'web-view-details', { width: WIDTH, height: 760 });
  page = web.page;
}, 20 * 60_000);
afterEach(async ({ task }) => {
  if (task.result?.state === 'fail') await web?.showFailure(task.name);
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await env?.close();
  await temporal?.teardown();
});

const call = <T>(method: string, path: string, body?: unknown) => server!.ok<T>(method, path, body);

/** A PNG of the top of the page, small enough for the docs; with LOOM_UPDATE_SCREENSHOTS=1 kept in docs/images/. */
async function docShot(name: string, height: number): Promise<void> {
  const path = join(web.shots, name);
  await page.screenshot({ path, type: 'png', clip: { x: 0, y: 0, width: WIDTH, height } });
  const bytes = statSync(path).size;
  expect(bytes, `${name} weighs ${bytes} bytes`).toBeLessThan(MAX_SHOT_BYTES);
  expect(bytes).toBeGreaterThan(5_000);
  if (UPDATE_SCREENSHOTS) {
    mkdirSync(DOC_IMAGES, { recursive: true });
    copyFileSync(path, join(DOC_IMAGES, name));
  }
}

/** A tool call's summary line, by its position among the calls of that tool. */
const callLine = (tool: string, index = 0) => page.locator(`[data-tool="${tool}"]`).nth(index).locator('summary');

/** The one browser global the checks below read (the tests' types have no DOM). */
interface Browserish {
  getComputedStyle(element: unknown): {
    fontSize: string;
    textTransform: string;
    color: string;
    listStyleType: string;
    backgroundColor: string;
  };
}

const box = async (locator: Locator) => {
  const found = await locator.boundingBox();
  expect(found).not.toBeNull();
  return found!;
};

describe('the web view, in detail', () => {
  it('describes calls as the CLI does, marks each subagent step once, and renders headings; screenshots of an approval', async () => {
    env.model.setScript([
      {
        name: 'root-globs',
        when: { lastUser: 'Survey the docs', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'glob', args: { pattern: '**/*.md' } },
            { name: 'glob', args: { pattern: 'docs/*.txt' } },
          ],
        },
      },
      {
        name: 'root-task',
        times: 1,
        when: { lastUser: 'Survey the docs', lastRole: 'tool' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Build', prompt: 'Check the build.', subagent_type: 'general' } },
          ],
        },
      },
      {
        name: 'root-done',
        when: { lastUser: 'Survey the docs', lastRole: 'tool' },
        reply: { text: '## Summary\n\nThe docs are in order and the build passes.' },
      },
      {
        name: 'child-glob',
        when: { lastUser: 'Check the build.', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'glob', args: { pattern: 'src/**/*.ts' } }] },
      },
      {
        name: 'child-build',
        times: 1,
        when: { lastUser: 'Check the build.', lastRole: 'tool' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'echo built', description: 'Build' } }] },
      },
      { name: 'child-done', when: { lastUser: 'Check the build.', lastRole: 'tool' }, reply: { text: 'Built.' } },
    ]);
    await page.goto(`${base}/#token=${TOKEN}`);
    await page.locator('.live.on').waitFor();
    const { id } = await call<{ id: string }>('POST', '/session', {
      prompt: 'Survey the docs',
      model: SCRIPTED_MODEL,
      title: 'Survey the docs',
    });
    await waitUntil(async () => (await env.store.getSession(id)) !== undefined, 30_000);
    await page.goto(`${base}/#/session/${id}`);

    // Live, from the event stream: each glob says its pattern, not the folder it searched (".").
    await callLine('glob', 0).locator('.title').getByText('**/*.md', { exact: true }).waitFor();
    await callLine('glob', 1).locator('.title').getByText('docs/*.txt', { exact: true }).waitFor();
    await page.locator('.approvals .request strong').getByText('bash · echo built').waitFor();
    // The request's words keep their spaces: what, who, where; then the permission and its patterns.
    const [asked, rule] = await page.locator('.approvals .request p').allInnerTexts();
    expect(asked).toMatch(/^bash · echo built · general in ses_\w+$/);
    expect(rule).toBe('bash: echo built · “Always” allows echo *');
    await page.locator('.tree [data-tree-node] [data-tree-node] .status[data-status="waiting-approval"]').waitFor();
    await callLine('task').locator('.title').getByText('general · Build', { exact: true }).waitFor();
    await page.locator('[data-tool="task"] .steps li').getByText('glob src/**/*.ts').waitFor();
    await docShot('web-view-approval.png', 620);

    // The run's details in the Temporal UI, while it waits for the person.
    const ui = await browser.newPage({ viewport: { width: WIDTH, height: 1000 } });
    try {
      await ui.goto(`http://localhost:${uiPort}/namespaces/default/workflows/${id}`);
      await ui.getByText(id).first().waitFor({ timeout: 30_000 });
      await ui.getByText('Running').first().waitFor({ timeout: 30_000 });
      await ui.getByText('sessionWorkflow').first().waitFor({ timeout: 30_000 });
      // The run's summary and details (the waiting request first) are on its User Metadata tab.
      await ui.getByText('User Metadata', { exact: true }).first().click();
      // The UI renders markdown in frames of its own.
      const framesText = async () =>
        (
          await Promise.all(
            ui.frames().map((frame) => frame.evaluate<string>('document.body ? document.body.innerText : ""')),
          )
        ).join('\n');
      await waitUntil(async () => (await framesText()).includes('waiting for approval: bash · echo built'), 30_000);
      const path = join(web.shots, 'temporal-ui-waiting.png');
      // Without the UI's side bar: the run's header and its metadata.
      await ui.screenshot({ path, type: 'png', clip: { x: 260, y: 60, width: WIDTH - 260, height: 940 } });
      expect(statSync(path).size).toBeLessThan(MAX_SHOT_BYTES);
      if (UPDATE_SCREENSHOTS) copyFileSync(path, join(DOC_IMAGES, 'temporal-ui-waiting.png'));
    } finally {
      await ui.close();
    }

    await page.getByRole('button', { name: 'Allow once' }).click();
    await page.locator('.markdown h2').getByText('Summary').waitFor();
    await page.locator('[data-tool="task"][data-state="completed"]').waitFor();

    // Read again from the API (a reload): the same words, and no call reads as a bare ".".
    await page.reload();
    await page.locator('.markdown h2').getByText('Summary').waitFor();
    expect(await callLine('glob', 0).locator('.title').textContent()).toBe('**/*.md');
    expect(await callLine('glob', 1).locator('.title').textContent()).toBe('docs/*.txt');
    expect(await page.locator('[data-tool] > summary .title').allTextContents()).not.toContain('.');

    // `## Summary` is a heading a reader sees as one: larger than the text, not a small grey capital label.
    const heading = await page.locator('.markdown h2').evaluate((element) => {
      const style = (globalThis as unknown as Browserish).getComputedStyle(element);
      const body = (globalThis as unknown as Browserish).getComputedStyle(
        (
          element as unknown as { parentElement: { querySelector(selector: string): unknown } }
        ).parentElement.querySelector('p')!,
      );
      return {
        size: parseFloat(style.fontSize),
        bodySize: parseFloat(body.fontSize),
        transform: style.textTransform,
        color: style.color,
        bodyColor: body.color,
      };
    });
    expect(heading.size).toBeGreaterThan(heading.bodySize);
    expect(heading.transform).toBe('none');
    expect(heading.color).toBe(heading.bodyColor);

    // Each subagent step has one mark: its tick, and no list bullet before it.
    await callLine('task').click();
    const steps = page.locator('[data-tool="task"] .steps li');
    expect(await steps.allTextContents()).toEqual([
      expect.stringMatching(/^\s*✓ glob src\/\*\*\/\*\.ts\s*$/),
      expect.stringMatching(/^\s*✓ bash echo built\s*$/),
    ]);
    expect(
      await steps
        .first()
        .evaluate((element) => (globalThis as unknown as Browserish).getComputedStyle(element).listStyleType),
    ).toBe('none');
    expect(web.problems).toEqual([]);
  });

  it('shows a command the sandbox refused as failed, with what it refused', async () => {
    const command = `node -e "fs.writeFileSync(os.homedir() + '/loom-web-sneaky.txt', '')"`;
    env.model.setScript([
      {
        name: 'sneak',
        when: { lastUser: 'Sneak out', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command, description: 'Sneak' } }] },
      },
      { name: 'gave-up', when: { lastUser: 'Sneak out', lastRole: 'tool' }, reply: { text: 'Gave up.' } },
    ]);
    const { id } = await call<{ id: string }>('POST', '/session', { prompt: 'Sneak out', model: SCRIPTED_MODEL });
    await waitUntil(async () => (await env.store.getSession(id))?.status === 'idle', 60_000);
    await page.goto(`${base}/#token=${TOKEN}`);
    await page.goto(`${base}/#/session/${id}`);
    const line = page.locator('[data-tool="bash"]');
    await line.locator('.state').getByText('refused by the sandbox').waitFor();
    expect(await line.locator('summary .icon').innerText()).toBe('✗');
    expect(await line.locator('.sandbox-refusal').innerText()).toMatch(
      /^The sandbox refused: .*\/loom-web-sneaky\.txt is read-only in the sandbox/,
    );
  });

  it('shows a cancelled batch by outcome, and cancels only after a yes', async () => {
    web.problems.length = 0;
    env.model.setScript([
      { name: 'quick', when: { lastUser: 'Task 1' }, reply: { text: '## Done\n\nAt **once**.' } },
      {
        name: 'look',
        when: { lastUser: /^Task [2-6]$/, lastRole: 'user' },
        reply: { toolCalls: [{ name: 'glob', args: { pattern: '*.md' } }] },
      },
      {
        name: 'slow',
        when: { lastUser: /^Task [2-6]$/, lastRole: 'tool' },
        reply: { text: 'Too late.', delayMs: 60_000 },
      },
    ]);
    const { id } = await call<{ id: string }>('POST', '/batch', {
      tasks: [1, 2, 3, 4, 5, 6].map((n) => ({ description: `Task ${n}`, prompt: `Task ${n}` })),
      model: SCRIPTED_MODEL,
      concurrency: 1,
    });
    await page.goto(`${base}/#/batch/${id}?token=${TOKEN}`);
    await page
      .locator('.batch-page .meta')
      .getByText('build · scripted/test-model · concurrency 1 · retries 1')
      .waitFor();
    // Started through the API, it is titled by its tasks, and says which project it works in.
    await page.locator('.batch-page h1').getByText('Task 1 + 5 more tasks', { exact: true }).waitFor();
    await page.locator('.batch-page .meta [data-folder]').getByText(env.project, { exact: true }).waitFor();
    const progress = page.locator('.batch-page .progress');
    await progress.locator('[data-count="completed"]').getByText('1 completed').waitFor();
    await progress.locator('[data-count="running"]').getByText('1 running').waitFor();
    await waitUntil(async () => env.model.requests.some((request) => request.rule === 'slow'), 30_000);

    // Dismissed: the dialog closes and the batch runs on.
    await page.getByRole('button', { name: 'Cancel batch' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cancel this batch?' });
    await dialog.waitFor();
    await dialog.getByText('1 running task stops and 4 waiting tasks never start.').waitFor();
    await page.screenshot({ path: join(web.shots, 'batch-confirm.png') });
    await dialog.getByRole('button', { name: 'Keep it running' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await page.waitForTimeout(1_000);
    expect((await call<{ status: string }>('GET', `/batch/${id}`)).status).toBe('running');
    await page.locator('.batch-page .meta .status[data-status="running"]').waitFor();

    // Accepted: the batch is cancelled.
    await page.getByRole('button', { name: 'Cancel batch' }).click();
    await dialog.getByRole('button', { name: 'Yes, cancel the batch' }).click();
    await page.locator('.batch-page .meta .status[data-status="cancelled"]').waitFor();
    await progress.locator('[data-count="cancelled"]').getByText('5 cancelled').waitFor();
    await progress.getByText('6/6').waitFor();
    // A markdown answer reads as its first line of words; the task cancelled halfway shows what it spent.
    await page.locator('tr[data-task="0"] .answer').getByText('At once.', { exact: true }).waitFor();
    const spent = page.locator('tr[data-task="1"] td.num').last();
    await spent.getByText(/^[1-9][\d.]*k? tokens$/).waitFor();

    await page.screenshot({ path: join(web.shots, 'batch-cancelled.png') });
    // The bar: one part in six done, five cancelled, in different colours.
    const bar = await box(progress.locator('.bar'));
    const done = await box(progress.locator('[data-segment="completed"]'));
    const cancelled = await box(progress.locator('[data-segment="cancelled"]'));
    expect(done.width / bar.width).toBeCloseTo(1 / 6, 1);
    expect(cancelled.width / bar.width).toBeCloseTo(5 / 6, 1);
    const colour = (segment: string) =>
      progress
        .locator(`[data-segment="${segment}"]`)
        .evaluate((element) => (globalThis as unknown as Browserish).getComputedStyle(element).backgroundColor);
    expect(await colour('completed')).not.toBe(await colour('cancelled'));
    expect(await progress.locator('.bar').getAttribute('aria-valuetext')).toBe(
      '6 of 6 finished: 1 completed, 5 cancelled',
    );

    // In the list of batches, the status badge stands apart from the words after it.
    await page.goto(`${base}/#/batches`);
    const row = page.locator(`li[data-batch="${id}"]`);
    await row.getByRole('link', { name: 'Task 1 + 5 more tasks' }).waitFor();
    expect(await row.locator('[data-folder]').textContent()).toBe(env.project);
    const badge = await box(row.locator('.status'));
    const after = await box(row.locator('.status + .muted'));
    expect(after.x - (badge.x + badge.width)).toBeGreaterThanOrEqual(4);
    await page.screenshot({ path: join(web.shots, 'batches.png') });
    expect(web.problems).toEqual([]);
  });
});
