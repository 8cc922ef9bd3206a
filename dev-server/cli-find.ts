import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { DevServerError } from './errors.js';
import { runProgram } from './exec.js';
import type { InstallPlaces } from './install-places.js';
import type { Output } from './output.js';

/** Where an installed CLI goes: `<installRoot>/bin/temporal`. */
export const localBinary = (installRoot: string) => join(installRoot, 'bin', 'temporal');

export function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Whether `path` runs and reports `temporal version …`. */
export async function isTemporalCli(path: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  if (!isExecutableFile(path)) return false;
  const result = await runProgram(path, ['--version'], { env, timeoutMs: 30_000 });
  return result.ok && result.stdout.startsWith('temporal version ');
}

/** The first executable called `name` on the PATH of `env` (as `command -v`), absolute. */
export function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const folder of (env.PATH ?? '').split(delimiter)) {
    if (folder && isExecutableFile(join(folder, name))) return resolve(folder, name);
  }
  return undefined;
}

/**
 * The CLI found without installing anything: $TEMPORAL_CLI, `temporal` on PATH, then the ones
 * installed in `places`. Throws if $TEMPORAL_CLI is set but unusable.
 */
export async function findTemporal(
  env: NodeJS.ProcessEnv,
  places: InstallPlaces,
  output: Output,
): Promise<string | undefined> {
  if (env.TEMPORAL_CLI) {
    const candidate = resolve(env.TEMPORAL_CLI);
    if (!isExecutableFile(candidate))
      throw new DevServerError(`TEMPORAL_CLI=${env.TEMPORAL_CLI} is not an executable file`);
    if (!(await isTemporalCli(candidate, env))) {
      throw new DevServerError(
        `TEMPORAL_CLI=${env.TEMPORAL_CLI} does not look like the Temporal CLI ('--version' did not print 'temporal version ...')`,
      );
    }
    return candidate;
  }
  const fromPath = onPath('temporal', env);
  if (fromPath) {
    if (await isTemporalCli(fromPath, env)) return fromPath;
    output.log(`ignoring ${fromPath} on PATH: it is not the Temporal CLI`);
  }
  for (const root of [places.root, ...places.alsoLook]) {
    if (await isTemporalCli(localBinary(root), env)) return localBinary(root);
  }
  return undefined;
}
