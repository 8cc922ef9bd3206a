import { spawnSync } from 'node:child_process';

/**
 * Installs one of Debian's packages with apt-get (update, then install), so a fresh machine and CI
 * need no manual step before the tests that use it. `why` says in the errors what the package is
 * for and what to do instead, e.g. 'No Chromium found (set CHROMIUM_PATH, or put chromium on PATH)'.
 */
export function aptInstall(packageName: string, why: string): void {
  const root = process.getuid?.() === 0;
  const hasApt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!root || !hasApt) {
    throw new Error(
      `${why}, and it cannot be installed here: ${!hasApt ? 'apt-get is missing' : 'installing needs root'}. ` +
        `On Debian or Ubuntu: apt-get install ${packageName}.`,
    );
  }
  process.stderr.write(`${why}; installing Debian's ${packageName} package with apt-get (once per machine) …\n`);
  // Wait for another apt (a second test file installing at the same time) instead of failing on its lock.
  const lockWait = ['-o', 'DPkg::Lock::Timeout=600'];
  const environment = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [
    ['update', ...lockWait],
    ['install', '-y', ...lockWait, packageName],
  ]) {
    const run = spawnSync('apt-get', ['-q', ...args], { env: environment, encoding: 'utf8', timeout: 15 * 60_000 });
    if (run.status !== 0) {
      throw new Error(
        `apt-get ${args.join(' ')} failed (exit ${run.status ?? run.signal}) while installing ${packageName}: ${why}.\n` +
          (run.stderr || run.stdout || String(run.error ?? '')).slice(-2000),
      );
    }
  }
}
