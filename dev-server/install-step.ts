import { chmodSync, copyFileSync, linkSync, mkdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { localBinary } from './cli-find.js';
import type { InstallPlaces } from './install-places.js';
import type { InstallSettings } from './options.js';
import type { Output } from './output.js';

/** What an install method needs. */
export interface InstallContext {
  /** Where the installers put the CLI: `places.root`. */
  installRoot: string;
  places: InstallPlaces;
  env: NodeJS.ProcessEnv;
  settings: InstallSettings;
  output: Output;
}

/** An install method places a working CLI at `<installRoot>/bin/temporal`, or throws this. */
export class InstallFailed extends Error {
  override name = 'InstallFailed';
  constructor(
    /** Why, in one line. */
    reason: string,
    /** The end of the failed command's output, indented. */
    readonly details: string[] = [],
  ) {
    super(reason);
  }
}

/** Places the binary `source` at `<installRoot>/bin/temporal` atomically (hard link, else copy). */
export function placeBinary(source: string, installRoot: string): void {
  replaceAtomically(localBinary(installRoot), (temporary) => {
    try {
      linkSync(source, temporary);
    } catch {
      copyFileSync(source, temporary);
    }
    chmodSync(temporary, 0o755);
  });
}

/** Makes `<installRoot>/bin/temporal` the binary `source` as well: a hard link, else a symbolic one. */
export function shareBinary(source: string, installRoot: string): void {
  replaceAtomically(localBinary(installRoot), (temporary) => {
    try {
      linkSync(source, temporary);
    } catch {
      symlinkSync(source, temporary);
    }
  });
}

/** `target` becomes what `make` writes at a temporary name beside it, in one rename: a reader never sees half of it. */
function replaceAtomically(target: string, make: (temporary: string) => void): void {
  const temporary = `${target}.tmp.${process.pid}`;
  mkdirSync(dirname(target), { recursive: true });
  rmSync(temporary, { force: true });
  make(temporary);
  renameSync(temporary, target);
}
