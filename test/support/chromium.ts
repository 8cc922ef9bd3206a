import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

const NAMES = ['chromium', 'chromium-browser'];

/**
 * A Chromium for browser tests: `CHROMIUM_PATH`, else `chromium` or `chromium-browser` on PATH,
 * else Debian's `chromium` package, installed here with apt-get (as temporal-dev.sh installs the
 * Temporal CLI), so a fresh machine and CI need no manual step. Playwright's own browser downloads
 * are not used: the package is the browser.
 */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CHROMIUM_PATH) {
    if (!executable(env.CHROMIUM_PATH)) throw new Error(`CHROMIUM_PATH=${env.CHROMIUM_PATH} is not an executable file.`);
    return env.CHROMIUM_PATH;
  }
  const found = onPath(env);
  if (found) return found;
  installChromium();
  const installed = onPath(env);
  if (!installed) throw new Error(`apt-get installed the chromium package, but none of ${NAMES.join(', ')} is on PATH (${env.PATH}).`);
  return installed;
}

/** Headless Chromium driven by playwright-core; without the sandbox as root, where Chromium refuses it. */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: findChromium(), headless: true, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
}

function onPath(env: NodeJS.ProcessEnv): string | undefined {
  for (const name of NAMES) {
    for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
      const path = join(dir, name);
      if (executable(path)) return path;
    }
  }
  return undefined;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function installChromium(): void {
  const root = process.getuid?.() === 0;
  const hasApt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!root || !hasApt) {
    throw new Error(
      `No Chromium found (set CHROMIUM_PATH, or put chromium on PATH), and it cannot be installed here: ${!hasApt ? 'apt-get is missing' : 'installing needs root'}. ` +
        'On Debian or Ubuntu: apt-get install chromium.',
    );
  }
  process.stderr.write('No Chromium found; installing Debian\'s chromium package with apt-get (once per machine) …\n');
  // Wait for another apt (a second test file installing at the same time) instead of failing on its lock.
  const lockWait = ['-o', 'DPkg::Lock::Timeout=600'];
  const environment = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update', ...lockWait], ['install', '-y', ...lockWait, 'chromium']]) {
    const run = spawnSync('apt-get', ['-q', ...args], { env: environment, encoding: 'utf8', timeout: 15 * 60_000 });
    if (run.status !== 0) {
      throw new Error(`apt-get ${args.join(' ')} failed (exit ${run.status ?? run.signal}); install chromium by hand or set CHROMIUM_PATH:\n${(run.stderr || run.stdout || String(run.error ?? '')).slice(-2000)}`);
    }
  }
}
