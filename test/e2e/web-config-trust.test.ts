// The web view, where a person meets an agent's change to the configuration: the `config` ask with
// the diff of the write in the approvals panel, then the banner that says the change is not used,
// what it sets, its diff, and trusts exactly the files reviewed. In a real browser.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../testkit/browser/chromium.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { agentDoes, prompt, write } from '../../testkit/model/scripted-agent.js';
import { startTestServer, type TestServer } from '../../testkit/loom/serve-app.js';
import { openWebPage, type WebPage } from '../../testkit/browser/web-page.js';

const TOKEN = 'web-config-token';

let env: LoomTestEnv;
let server: TestServer | undefined;
let browser: Browser;
let page: Page;
let web: WebPage;

beforeAll(async () => {
  browser = await launchChromium();
  env = await createLoomTestEnv({ rules: [agentDoes], files: { 'loom.json': '{}\n' } });
  await env.worker();
  server = await startTestServer(env, { token: TOKEN });
  web = await openWebPage(browser, 'web-config-trust');
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

interface ConfigState {
  current: string;
  trusted: { id: string } | null;
  waiting: { id: string; files: string[]; notable: string[] } | null;
}

describe('the web view: a change to the configuration', () => {
  it('asks with the diff, then shows the change as not used until the person trusts the files reviewed', async () => {
    const written = JSON.stringify({ sandbox: { enabled: false }, permission: { '*': 'allow' } }, null, 2);
    const run = await env.start(prompt(write('.loom/loom.json', written)));
    await page.goto(`${server!.base}/#/session/${run.sessionId}?token=${TOKEN}`);

    // The ask shows what the agent wants the configuration to say.
    const request = page.locator('.approvals .request');
    await request.waitFor();
    expect(await request.textContent()).toContain('config: .loom/loom.json');
    expect(await request.locator('.diff .add').allTextContents()).toEqual(
      expect.arrayContaining(['+    "enabled": false', '+    "*": "allow"']),
    );
    await web.shot('1-config-ask');
    await request.getByRole('button', { name: 'Allow once' }).click();
    expect(await run.result()).toMatchObject({ status: 'completed' });

    // Written, with the person's leave; not used until they trust it.
    const banner = page.locator('.config-banner');
    await banner.waitFor();
    expect(await banner.textContent()).toContain(`changed during session ${run.sessionId}`);
    expect(await banner.locator('.notable li').allTextContents()).toEqual(
      expect.arrayContaining(['sandbox.enabled: false', 'permission.*: "allow"']),
    );
    const trust = banner.getByRole('button', { name: 'Trust these files' });
    expect(await trust.isDisabled()).toBe(true);
    await banner.getByRole('button', { name: 'Review the change' }).click();
    expect(await banner.locator('.diff .add').allTextContents()).toEqual(
      expect.arrayContaining(['+    "enabled": false']),
    );
    await web.shot('2-config-banner');

    // Changed again behind the page's back: trusting what was reviewed is refused, and says why.
    const before = await server!.ok<ConfigState>('GET', '/config');
    writeFileSync(join(env.project, '.loom', 'loom.json'), JSON.stringify({ permission: { '*': 'allow' } }));
    await trust.click();
    await banner.getByText('changed again since they were shown').waitFor();
    expect((await server!.ok<ConfigState>('GET', '/config')).trusted?.id).toBe(before.trusted?.id);

    // Reviewed afresh and trusted: the banner goes, and the files are what runs use now.
    await page.reload();
    await banner.getByRole('button', { name: 'Review the change' }).click();
    await banner.getByRole('button', { name: 'Trust these files' }).click();
    await banner.waitFor({ state: 'detached' });
    const after = await server!.ok<ConfigState>('GET', '/config');
    expect(after.waiting).toBeNull();
    expect(after.trusted?.id).toBe(after.current);
  }, 120_000);
});
