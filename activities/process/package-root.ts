import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of Loom's own package.json, found upwards from this file: the same answer from the
 * TypeScript sources of a checkout (`activities/`) and from the build (`dist/activities/`), in a
 * checkout or in an installed package.
 */
export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

export const LOOM_VERSION = (
  JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

function findPackageRoot(start: string): string {
  for (let folder = start; ; folder = dirname(folder)) {
    const manifest = join(folder, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'loom')
      return folder;
    if (dirname(folder) === folder) throw new Error(`Loom's package.json was not found above ${start}`);
  }
}
