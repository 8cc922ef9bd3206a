import { z } from 'zod';

/**
 * `sandbox` (Loom only, in the spirit of Claude Code's sandbox settings): how the operating system
 * confines what agents run (bash, `` !`cmd` `` in commands, local MCP servers). At the top of
 * `loom.json`, in `agent.<name>` (for that agent's bash calls) and in a local `mcp.<name>` entry
 * (for that server). Every key is optional; see `activities/sandbox/policy.ts` for the defaults.
 */
export const SandboxConfig = z.strictObject({
  /** `false` runs everything unconfined (default `true` on Linux). */
  enabled: z.boolean().optional(),
  /** Paths writable besides the workspace and the private temporary folder (relative to the project, or `~/…`). */
  write: z.array(z.string().min(1)).optional(),
  /** Paths hidden besides the defaults (`~/.ssh`, `~/.aws`, …). */
  deny: z.array(z.string().min(1)).optional(),
  network: z
    .strictObject({
      /** Hosts reachable through the sandbox's proxy: `registry.npmjs.org`, `*.github.com`, `localhost:8080`. */
      allow: z.array(z.string().min(1)).optional(),
    })
    .optional(),
  /**
   * When the sandbox cannot start on a worker: `refuse` the command (the default
   * on Linux), or run it `unconfined` with a warning (elsewhere).
   */
  unavailable: z.enum(['refuse', 'unconfined']).optional(),
});
export type SandboxConfig = z.infer<typeof SandboxConfig>;

/**
 * One agent's or server's sandbox over the project's: its own keys win, and its lists add to the
 * project's (an agent can open a path or a host more, never hide the project's denials).
 */
export function mergeSandboxConfig(base: SandboxConfig | undefined, own: SandboxConfig | undefined): SandboxConfig {
  if (!own) return base ?? {};
  const join = (a?: string[], b?: string[]) => (a || b ? [...new Set([...(a ?? []), ...(b ?? [])])] : undefined);
  const write = join(base?.write, own.write);
  const deny = join(base?.deny, own.deny);
  const allow = join(base?.network?.allow, own.network?.allow);
  return {
    ...base,
    ...own,
    ...(write ? { write } : {}),
    ...(deny ? { deny } : {}),
    ...(allow ? { network: { allow } } : {}),
  };
}
