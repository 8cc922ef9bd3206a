import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from '../../activities/process/paths.js';

/** The OpenCode release the bench and the eval run beside Loom: never a dependency of Loom's. */
export const OPENCODE_VERSION = '1.18.33';

/** The `opencode` binary, installed on first use; a reason when it cannot be. */
export function installOpenCode(env: NodeJS.ProcessEnv): { binary: string } | { reason: string } {
  const prefix = join(cacheDir(env), 'bench', `opencode-${OPENCODE_VERSION}`);
  const platformBinary = join(
    prefix,
    'node_modules',
    `opencode-${process.platform}-${process.arch}`,
    'bin',
    'opencode',
  );
  const wrapper = join(prefix, 'node_modules', '.bin', 'opencode');
  const found = () => [platformBinary, wrapper].find((path) => existsSync(path));
  if (!found()) {
    try {
      mkdirSync(prefix, { recursive: true });
      execFileSync(
        'npm',
        ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--no-save', `opencode-ai@${OPENCODE_VERSION}`],
        { stdio: 'ignore', timeout: 300_000 },
      );
    } catch (error) {
      return {
        reason: `OpenCode ${OPENCODE_VERSION} could not be installed into ${prefix} (${(error as Error).message.split('\n')[0]})`,
      };
    }
  }
  const binary = found();
  return binary
    ? { binary }
    : {
        reason: `npm installed opencode-ai ${OPENCODE_VERSION} but no opencode binary for ${process.platform}-${process.arch} is in ${prefix}`,
      };
}
