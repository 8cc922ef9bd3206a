// `npm ci` / `npm install` in a checkout (npm's `prepare`): builds dist/ so that `loom` starts from
// the build. A build that fails does not fail the install: `loom` then runs the sources through
// tsx, as it does whenever the build is older than them. `npm pack` builds in `prepack` instead,
// where a failed build must stop the pack.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../activities/package-root.js';

if (!['pack', 'publish'].includes(process.env.npm_command ?? '')) {
  const build = spawnSync(process.execPath, ['--import', 'tsx', join(PACKAGE_ROOT, 'scripts', 'build.ts')], {
    cwd: PACKAGE_ROOT,
    stdio: 'inherit',
  });
  if (build.status !== 0) {
    process.stderr.write(
      `warning: \`npm run build\` failed (${build.status === null ? `killed by ${build.signal}` : `exit ${build.status}`}), so \`loom\` runs from the TypeScript sources, which starts slower; run \`npm run build\` again once it is fixed.\n`,
    );
  }
}
