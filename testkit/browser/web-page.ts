import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';

/** A page of a browser test, what went wrong in it, and a temp folder for its screenshots (never the repository). */
export interface WebPage {
  page: Page;
  /** Console errors and uncaught exceptions: a CSP refusal, a failed import or a thrown render shows up here. */
  problems: string[];
  shots: string;
  /** A full-page screenshot in the shots folder. */
  shot(name: string): Promise<void>;
  /** After a failed test: what the page showed, as a screenshot and as text in the log. */
  showFailure(testName: string): Promise<void>;
}

export async function openWebPage(
  browser: Browser,
  label: string,
  viewport: { width: number; height: number } = { width: 1280, height: 900 },
): Promise<WebPage> {
  const page = await browser.newPage({ viewport });
  const problems: string[] = [];
  page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
  page.on('pageerror', (error) => problems.push(error.message));
  const shots = mkdtempSync(join(tmpdir(), `loom-${label}-`));
  process.stdout.write(`${label} screenshots: ${shots}\n`);
  const shot = async (name: string) => {
    await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  };
  return {
    page,
    problems,
    shots,
    shot,
    async showFailure(testName) {
      await shot(`failed-${testName.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => undefined);
      const text = await page
        .locator('body')
        .innerText()
        .catch((error: Error) => error.message);
      process.stdout.write(`The page at ${page.url()} showed:\n${text.slice(0, 3000)}\n`);
    },
  };
}
