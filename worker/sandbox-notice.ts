import { sandboxAvailability } from '../activities/sandbox/availability.js';

/**
 * What a worker that runs workspace tools says at start when Loom's sandbox cannot start on its
 * machine: why, what happens to commands, and how to fix it. Undefined when the sandbox works.
 */
export async function sandboxNotice(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const availability = await sandboxAvailability(env);
  if (availability.ok) return undefined;
  return (
    `Warning: Loom's sandbox cannot start on this machine: ${availability.reason}. ` +
    (process.platform === 'linux'
      ? 'bash, the shell lines of commands and local MCP servers are refused, unless a project sets "sandbox": {"unavailable": "unconfined"}. '
      : 'bash, the shell lines of commands and local MCP servers run unconfined, with a warning to the model. ') +
    `To fix it, ${availability.remedy}.`
  );
}
