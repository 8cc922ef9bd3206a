import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../browser/chromium.js';
import { PICTURE_SELECTOR, screenHtml, type ScreenPictureOptions } from './screen-html.js';

export interface ScreenshotOptions extends ScreenPictureOptions {
  /** Device pixels per CSS pixel; 2 (the default) stays sharp on high-density screens, as in a README. */
  scale?: number;
  /** A browser to draw with; without one, a headless Chromium is started and closed for this picture. */
  browser?: Browser;
}

/**
 * Draws a screen captured with its colours (`TerminalSession.screenWithColours()`, i.e. `tmux
 * capture-pane -e`) as a terminal window in a real Chromium, and writes it to `outPath` as a PNG
 * with a transparent margin around the window's shadow.
 */
export async function screenshotPng(ansiScreen: string, outPath: string, options: ScreenshotOptions): Promise<void> {
  const browser = options.browser ?? (await launchChromium());
  try {
    const page = await browser.newPage({
      viewport: { width: 400, height: 300 },
      deviceScaleFactor: options.scale ?? 2,
    });
    try {
      await page.setContent(screenHtml(ansiScreen, options));
      await page.evaluate(
        () => (globalThis as unknown as { document: { fonts: { ready: Promise<unknown> } } }).document.fonts.ready,
      );
      const picture = page.locator(PICTURE_SELECTOR);
      const box = await picture.boundingBox();
      if (!box) throw new Error(`The screenshot page drew no ${PICTURE_SELECTOR} element.`);
      // A viewport as large as the picture, so nothing of it is cut off or scrolled.
      await page.setViewportSize({ width: Math.ceil(box.width), height: Math.ceil(box.height) });
      mkdirSync(dirname(outPath), { recursive: true });
      await picture.screenshot({ path: outPath, omitBackground: true });
    } finally {
      await page.close();
    }
  } finally {
    if (!options.browser) await browser.close();
  }
}
