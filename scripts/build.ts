// `npm run build`: the TypeScript compiled into dist/, with what the compiled code reads beside it
// (the web view's files), the workflow bundle made once here instead of on each machine, and the
// CLI bundled into dist/cli/ (scripts/cli-bundle.ts).
import { execFileSync } from 'node:child_process';
import { cpSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../activities/process/package-root.js';
import { bundleCli } from './cli-bundle.js';

const dist = join(PACKAGE_ROOT, 'dist');
const started = Date.now();
rmSync(dist, { recursive: true, force: true });
try {
  execFileSync(
    process.execPath,
    [join(PACKAGE_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(PACKAGE_ROOT, 'tsconfig.build.json')],
    { stdio: 'inherit' },
  );
} catch {
  process.stderr.write('The TypeScript compiler found the errors above: dist/ is not built.\n');
  process.exit(1);
}
cpSync(join(PACKAGE_ROOT, 'client', 'serve', 'web'), join(dist, 'client', 'serve', 'web'), { recursive: true });
// Bundled from the compiled workflows, by the compiled bundler: the code that will load it.
const { bundleWorkflows, BUILT_BUNDLE_NAMES } = (await import(
  join(dist, 'worker', 'bundle.js')
)) as typeof import('../worker/bundle.js');
writeFileSync(join(dist, BUILT_BUNDLE_NAMES.traced), await bundleWorkflows('traced'));
await bundleCli(dist);
// Last: its time says when the build was made (bin/entry.js and prepack compare the sources with
// it). The time the build started, so a source edited while it ran counts as newer than the build.
const marker = join(dist, BUILT_BUNDLE_NAMES.plain);
writeFileSync(marker, await bundleWorkflows('plain'));
utimesSync(marker, new Date(started), new Date(started));
process.stderr.write(`Built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
