import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../activities/process/package-root.js';

/**
 * Where the Temporal CLI is looked for (after $TEMPORAL_CLI and PATH) and installed. Each place is
 * an install root holding `bin/temporal`.
 */
export interface InstallPlaces {
  /** Where a missing CLI is installed; looked at first. */
  root: string;
  /** Earlier installs looked at next, before anything is downloaded. */
  alsoLook: string[];
  /** Where a new install is linked as well, so that an installed package finds it. */
  shareTo?: string;
}

/** A checkout has the TypeScript sources; an installed package has only the build. */
const IN_CHECKOUT = existsSync(join(PACKAGE_ROOT, 'dev-server', 'main.ts'));

/**
 * The per-user install shared by every checkout and package version: in Loom's cache folder, beside
 * ripgrep (`$LOOM_CACHE_DIR`, else `${XDG_CACHE_HOME:-$HOME/.cache}/loom`). Not in the data folder:
 * its `temporal/` holds the dev server's database.
 */
export function sharedInstallRoot(env: NodeJS.ProcessEnv): string | undefined {
  if (env.LOOM_CACHE_DIR) return join(env.LOOM_CACHE_DIR, 'temporal');
  const base = env.XDG_CACHE_HOME || (env.HOME ? join(env.HOME, '.cache') : undefined);
  return base ? join(base, 'loom', 'temporal') : undefined;
}

/**
 * `$LOOM_TEMPORAL_DIR` alone when set. Otherwise a checkout installs into its own `.temporal/` (as
 * it always has; its tests and CI use it) and shares the install; an installed package, whose
 * folder npm replaces on every install and may not be writable, installs into the shared place,
 * and still uses a CLI its folder already holds.
 */
export function installPlaces(env: NodeJS.ProcessEnv, inCheckout = IN_CHECKOUT): InstallPlaces {
  if (env.LOOM_TEMPORAL_DIR) return { root: resolve(env.LOOM_TEMPORAL_DIR), alsoLook: [] };
  const own = join(PACKAGE_ROOT, '.temporal');
  const shared = sharedInstallRoot(env);
  if (!shared) return { root: own, alsoLook: [] };
  return inCheckout ? { root: own, alsoLook: [shared], shareTo: shared } : { root: shared, alsoLook: [own] };
}
