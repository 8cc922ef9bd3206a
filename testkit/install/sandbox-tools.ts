import { aptInstall } from './apt.js';
import { findExecutable } from './executables.js';

/**
 * bubblewrap and socat, which Loom's sandbox runs (every bash call in the tests runs in it), from
 * Debian's packages when they are not on PATH, as Chromium is installed for the browser tests.
 */
export function installSandboxTools(env: NodeJS.ProcessEnv = process.env): void {
  for (const [program, packageName] of [
    ['bwrap', 'bubblewrap'],
    ['socat', 'socat'],
  ] as const) {
    if (findExecutable([program], env)) continue;
    aptInstall(packageName, `No ${program} found (Loom's sandbox runs every bash call of the tests in it)`);
    if (!findExecutable([program], env))
      throw new Error(`apt-get installed ${packageName}, but ${program} is not on PATH (${env.PATH}).`);
  }
}
