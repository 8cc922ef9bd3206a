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
  const target = localBinary(installRoot);
  const temporary = `${target}.tmp.${process.pid}`;
  mkdirSync(dirname(target), { recursive: true });
  rmSync(temporary, { force: true });
  try {
    linkSync(source, temporary);
  } catch {
    copyFileSync(source, temporary);
  }
  chmodSync(temporary, 0o755);
  renameSync(temporary, target);
}

/** Makes `<installRoot>/bin/temporal` the binary `source` as well: a hard link, else a symbolic one. */
export function shareBinary(source: string, installRoot: string): void {
  const target = localBinary(installRoot);
  const temporary = `${target}.tmp.${process.pid}`;
  mkdirSync(dirname(target), { recursive: true });
  rmSync(temporary, { force: true });
  try {
    linkSync(source, temporary);
  } catch {
    symlinkSync(source, temporary);
  }
  renameSync(temporary, target);
}
