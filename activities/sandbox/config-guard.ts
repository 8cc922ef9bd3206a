import { cp, lstat, mkdir, readlink, realpath, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { configPathsAround, isConfigPath } from '../../core/config/config-files.js';
import { isInside } from '../tools/files/project-path.js';

/**
 * Loom's configuration in the folders a sandbox may write: what decides what the next run may do
 * (its rules, agents, plugins, MCP servers, the sandbox itself), so no command may change it.
 */
export interface ConfigGuard {
  /** Config files and folders that exist: bound read-only over the writable folders. */
  readOnly: string[];
  /**
   * Config paths that do not exist yet. bubblewrap can only mount over what exists (a mount point
   * made for one would be left in the project), so one a command creates is moved out after it.
   */
  absent: string[];
}

/**
 * The config paths of the workspace and of every other folder the sandbox makes writable (each
 * one's own and its parents', see `configPathsAround`: another project a person let the command
 * write in has configuration too) that lie in a writable folder; a writable path that is itself
 * configuration (a granted file) stays read-only. The writable folders are bound over the
 * sandbox's own `/tmp`, which is private: only what lies in them reaches the host.
 */
export async function configGuard(workspace: string, writable: string[]): Promise<ConfigGuard> {
  const roots = [workspace, ...writable];
  const inWritable = (path: string) => roots.some((root) => isInside(root, path));
  const folders = await Promise.all(
    roots.map(async (root) => ((await lstat(root).catch(() => undefined))?.isDirectory() ? root : undefined)),
  );
  const candidates = new Set([
    ...folders.flatMap((folder) => (folder ? configPathsAround(folder) : [])),
    ...writable.filter((path) => isConfigPath(path)),
  ]);
  const guard: ConfigGuard = { readOnly: [], absent: [] };
  await Promise.all(
    [...candidates].map(async (path) => {
      const found = await lstat(path).catch(() => undefined);
      if (!found) {
        if (inWritable(path)) guard.absent.push(path);
        return;
      }
      const real = await realpath(path).catch(() => undefined);
      if (real === undefined) {
        // A link to nothing yet: writing through it creates its target.
        const target = resolve(dirname(path), await readlink(path).catch(() => '.'));
        if (inWritable(target)) guard.absent.push(target);
      } else if (inWritable(real)) guard.readOnly.push(real);
    }),
  );
  guard.readOnly = [...new Set(guard.readOnly)].sort();
  guard.absent = [...new Set(guard.absent)].sort();
  return guard;
}

/**
 * Moves the config paths a sandboxed process created (files, folders, links: never what a link
 * points to) into `aside`, a folder of Loom's data, and says which. Moved, not deleted: a person
 * may have made one by hand while the command ran. Called once every process of the sandbox ended.
 */
export async function moveCreatedConfig(guard: ConfigGuard, aside: string): Promise<string[]> {
  const created: string[] = [];
  for (const path of guard.absent) {
    if (!(await lstat(path).catch(() => undefined))) continue;
    const target = join(aside, path);
    await mkdir(dirname(target), { recursive: true });
    await rename(path, target).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EXDEV') throw error;
      await cp(path, target, { recursive: true, verbatimSymlinks: true });
      await rm(path, { recursive: true, force: true });
    });
    created.push(path);
  }
  return created;
}
