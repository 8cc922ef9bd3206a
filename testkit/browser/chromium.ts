import { chromium, type Browser } from 'playwright-core';
import { aptInstall } from '../install/apt.js';
import { findExecutable, isExecutable } from '../install/executables.js';

const NAMES = ['chromium', 'chromium-browser'];

/**
 * A Chromium for browser tests: `CHROMIUM_PATH`, else `chromium` or `chromium-browser` on PATH,
 * else Debian's `chromium` package, installed here with apt-get (as temporal-dev.sh installs the
 * Temporal CLI), so a fresh machine and CI need no manual step. Playwright's own browser downloads
 * are not used: the package is the browser.
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CHROMIUM_PATH) {
    if (!isExecutable(env.CHROMIUM_PATH))
      throw new Error(`CHROMIUM_PATH=${env.CHROMIUM_PATH} is not an executable file.`);
    return env.CHROMIUM_PATH;
  }
  const found = onPath(env);
  if (found) return found;
  aptInstall('chromium', 'No Chromium found (set CHROMIUM_PATH, or put chromium on PATH)');
  const installed = onPath(env);
  if (!installed)
    throw new Error(
      `apt-get installed the chromium package, but none of ${NAMES.join(', ')} is on PATH (${env.PATH}).`,
    );
  return installed;
}

/** Headless Chromium driven by playwright-core; without the sandbox as root, where Chromium refuses it. */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: findChromium(),
    headless: true,
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
}

function onPath(env: NodeJS.ProcessEnv): string | undefined {
  return findExecutable(NAMES, env);
}
