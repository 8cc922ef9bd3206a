import type { LoomConfig } from '../../core/config/config.js';
import { mergeSandboxConfig, type SandboxConfig } from '../../core/config/sandbox-config.js';
import { sandboxAvailability } from './availability.js';
import { sandboxPolicy } from './policy.js';
import { openSandbox, type Sandbox } from './sandbox.js';

/** How a process a tool starts is confined: in a sandbox, or not, with a warning to pass on. */
export interface Confinement {
  sandbox?: Sandbox;
  /** Said with the output when the process runs unconfined although the sandbox is on. */
  warning?: string;
}

/** The sandbox cannot start and the configuration refuses to run unconfined. */
export class SandboxUnavailableError extends Error {
  override name = 'SandboxUnavailableError';
}

/** Runs already warned that they run unconfined (once per run is enough). */
const warnedRuns = new Set<string>();
const WARNED_RUNS_KEPT = 10_000;

/**
 * The confinement of a process started for a session in `workspace` (`what` names it in errors:
 * `bash`, `the MCP server "docs"`). Off when `enabled` is false. When bubblewrap cannot start, the
 * process is refused, or with `unavailable: "unconfined"` runs as it is, warned about on the
 * run's first call (`runKey`).
 */
export async function confine(
  config: SandboxConfig,
  place: {
    workspace: string;
    dataDir: string;
    cwd: string;
    env: NodeJS.ProcessEnv;
    sessionId: string;
    runKey?: string;
    granted?: string[];
    /** A process outside the session's calls (an MCP server): a `/tmp` of its own, not the session's. */
    ownTmp?: boolean;
    /** Paths of the host's `/tmp` the process needs to see (a local MCP server's script). */
    shownFromHostTmp?: string[];
    what: string;
  },
): Promise<Confinement> {
  if (config.enabled === false) return {};
  const availability = await sandboxAvailability(place.env);
  if (!availability.ok) {
    const problem = `Loom's sandbox cannot start on this worker: ${availability.reason}`;
    if (unavailableMode(config) === 'refuse')
      throw new SandboxUnavailableError(`${place.what} is refused: ${problem}. To fix it, ${availability.remedy}.`);
    const key = place.runKey ?? place.sessionId;
    if (warnedRuns.has(key)) return {};
    if (warnedRuns.size >= WARNED_RUNS_KEPT) warnedRuns.clear();
    warnedRuns.add(key);
    return { warning: `Warning: ${place.what} ran unconfined (sandbox.unavailable is "unconfined"). ${problem}.` };
  }
  const policy = await sandboxPolicy(config, {
    workspace: place.workspace,
    dataDir: place.dataDir,
    env: place.env,
    granted: place.granted,
    shownFromHostTmp: place.shownFromHostTmp,
  });
  return {
    sandbox: await openSandbox(policy, {
      bwrap: availability.bwrap,
      cwd: place.cwd,
      ...(place.ownTmp ? {} : { sessionId: place.sessionId }),
    }),
  };
}

/**
 * What happens when the sandbox cannot start: as configured, else refused on Linux (where one
 * package fixes it) and unconfined elsewhere (Loom has no sandbox for other systems yet).
 */
export function unavailableMode(
  config: SandboxConfig,
  platform: NodeJS.Platform = process.platform,
): 'refuse' | 'unconfined' {
  return config.unavailable ?? (platform === 'linux' ? 'refuse' : 'unconfined');
}

/** The sandbox settings of an agent's processes: the project's, with the agent's over them. */
export function agentSandbox(config: LoomConfig, agent: string | undefined): SandboxConfig {
  return mergeSandboxConfig(config.sandbox, agent ? config.agent?.[agent]?.sandbox : undefined);
}
