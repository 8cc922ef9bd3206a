// `npm pack`'s prepack: builds dist/ unless it is up to date with everything it is made from (the
// sources, as bin/entry.js judges a build, and the build's settings and locked packages, which the
// CLI bundle holds). `npm run build && npm pack` builds once.
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../activities/process/package-root.js';
import { builtAt, sourcesChangedAt } from '../bin/entry.js';

const BUILD_INPUTS = [
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/build.ts',
  'scripts/cli-bundle.ts',
];

const built = builtAt();
const changed = Math.max(
  sourcesChangedAt(),
  ...BUILD_INPUTS.map((file) => statSync(join(PACKAGE_ROOT, file), { throwIfNoEntry: false })?.mtimeMs ?? 0),
);
if (built && changed <= built) {
  process.stderr.write(
    `dist/ is up to date with the sources (built ${new Date(built).toLocaleString()}): not rebuilding it.\n`,
  );
} else {
  // The build's output on stderr: `npm pack --json` keeps stdout for its JSON.
  execFileSync('npm', ['run', 'build'], { cwd: PACKAGE_ROOT, stdio: ['ignore', process.stderr, 'inherit'] });
}
