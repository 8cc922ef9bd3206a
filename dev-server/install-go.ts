import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isTemporalCli, onPath } from './cli-find.js';
import { GO_FALLBACK_VERSION, INSTALLED_SIZE } from './config.js';
import { lastLines, runProgram } from './exec.js';
import { watchProgress } from './install-progress.js';
import { InstallFailed, placeBinary, type InstallContext } from './install-step.js';

const MODULE = 'github.com/temporalio/cli/cmd/temporal';

/** Builds the CLI with `go install`: the latest release, else the last one that builds that way. */
export async function installWithGo({ installRoot, env, output }: InstallContext): Promise<void> {
  if (!onPath('go', env)) throw new InstallFailed('not installed');
  const gobin = join(installRoot, `gobin.tmp.${process.pid}`);
  mkdirSync(gobin, { recursive: true });
  try {
    const versions = ['latest', GO_FALLBACK_VERSION];
    let built: string | undefined;
    for (const version of versions) {
      output.progress(
        `Building the Temporal CLI (${INSTALLED_SIZE}) with 'go install ${MODULE}@${version}' into ${installRoot}: its Go modules are downloaded from the Go module proxy, then it compiles for several minutes …`,
      );
      const stop = watchProgress(output, 'building');
      const result = await runProgram('go', ['install', `${MODULE}@${version}`], {
        env: { ...env, GOBIN: gobin, CGO_ENABLED: '0' },
      }).finally(stop);
      if (result.ok) {
        built = version;
        break;
      }
      output.progress(`go: 'go install ...@${version}' failed (${result.failure}):`);
      output.err(
        lastLines(result.stdout + result.stderr)
          .map((line) => `${line}\n`)
          .join(''),
      );
    }
    if (!built) throw new InstallFailed(`'go install' failed for ${versions.join(' and ')}`);
    if (!(await isTemporalCli(join(gobin, 'temporal'), env))) throw new InstallFailed('the built binary does not work');
    placeBinary(join(gobin, 'temporal'), installRoot);
  } finally {
    rmSync(gobin, { recursive: true, force: true });
  }
}
