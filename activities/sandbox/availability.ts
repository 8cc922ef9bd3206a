import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type SandboxAvailability = { ok: true; bwrap: string } | { ok: false; reason: string; remedy: string };

/** The smallest sandbox Loom builds: if this starts, every call's can. */
const PROBE = ['--ro-bind', '/', '/', '--unshare-all', '--die-with-parent', '--', 'true'];

const checks = new Map<string, Promise<SandboxAvailability>>();

/**
 * Whether bubblewrap can build a sandbox on this machine, checked once per process (and program) by starting
 * one. `LOOM_BWRAP` names the program (default `bwrap` on PATH). When it cannot, `reason` says
 * why and `remedy` what to run.
 */
export function sandboxAvailability(env: NodeJS.ProcessEnv = process.env): Promise<SandboxAvailability> {
  const bwrap = env.LOOM_BWRAP || 'bwrap';
  let check = checks.get(bwrap);
  if (!check) checks.set(bwrap, (check = probe(bwrap)));
  return check;
}

async function probe(bwrap: string): Promise<SandboxAvailability> {
  if (process.platform !== 'linux') {
    return {
      ok: false,
      reason: `Loom's sandbox uses bubblewrap, which runs on Linux only (this is ${process.platform})`,
      remedy:
        'run the workspace\'s worker on Linux, or set "sandbox": {"enabled": false} in loom.json to run commands unconfined without this warning',
    };
  }
  try {
    await run(bwrap, PROBE, { timeout: 10_000 });
    return { ok: true, bwrap };
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string };
    if (failure.code === 'ENOENT') {
      return {
        ok: false,
        reason: `bubblewrap (${bwrap}) is not installed`,
        remedy: `install it (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap), or ${UNCONFINED}`,
      };
    }
    const said = (failure.stderr ?? failure.message).trim().split('\n').at(-1) ?? '';
    return {
      ok: false,
      reason: `bubblewrap cannot create a sandbox here: ${said}`,
      remedy: `${NAMESPACES}, or ${UNCONFINED}`,
    };
  }
}

const UNCONFINED = 'set "sandbox": {"unavailable": "unconfined"} in loom.json to run commands unconfined';
const NAMESPACES =
  'allow unprivileged user namespaces (sysctl -w kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 and later sysctl -w kernel.apparmor_restrict_unprivileged_userns=0; in a container, run it with --security-opt seccomp=unconfined or as privileged)';
