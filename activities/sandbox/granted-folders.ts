import { realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { writablePaths } from '../../core/rules/folder-grant.js';
import { permissionsOf } from '../permissions/index.js';
import type { ToolContext } from '../tools/running/tool-handler.js';

/**
 * The paths outside the project a person allowed this bash call to write (`external_directory`):
 * its sandbox makes them writable, or the approval would mean nothing. They are what the run
 * approved (`writable`: the folders the line writes in, or files directly in the home folder); a
 * run from before it said them works them out from the line again. Each is opened only as it was
 * approved: one that is a link now, or is gone, is left out, and so is a folder that is the home
 * folder or holds it, which no grant opens.
 */
export async function grantedPaths(
  input: { command: string; workdir?: string },
  context: Pick<ToolContext, 'directory' | 'env' | 'externalAllowed' | 'writable'>,
): Promise<string[]> {
  const home = context.env.HOME || homedir();
  // The tool's home and the worker's, which `~` meant when the line was checked, where they differ.
  const homes = await Promise.all([home, homedir()].map((path) => realpath(path).catch(() => path)));
  const approved =
    context.writable ?? (context.externalAllowed ? await fromTheLine(input, context.directory, home) : []);
  const kept = await Promise.all(
    approved.map(async (path) => {
      if ((await realpath(path).catch(() => undefined)) !== path) return undefined;
      const info = await stat(path).catch(() => undefined);
      const holdsHome = homes.some((folder) => folder === path || folder.startsWith(path === '/' ? '/' : `${path}/`));
      return info && !(info.isDirectory() && holdsHome) ? path : undefined;
    }),
  );
  return kept.filter((path): path is string => path !== undefined);
}

async function fromTheLine(
  input: { command: string; workdir?: string },
  directory: string,
  home: string,
): Promise<string[]> {
  const requests = await permissionsOf('bash', input, [], { directory, home });
  return requests.flatMap(writablePaths);
}
