import { chmod, lstat, readFile, realpath, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The kernel's list of the Unix sockets of the reader's network namespace: the worker's. */
export const UNIX_SOCKETS = '/proc/net/unix';

/** `<address>: <refs> <protocol> <flags> <type> <state> <inode>[ <path>]`; the path may hold spaces. */
const ENTRY = /^[0-9a-f]+: [0-9A-F]{8} [0-9A-F]{8} [0-9A-F]{8} [0-9A-F]{4} [0-9A-F]{2} +\d+(?: (.*))?$/;

/** What a sandbox shows of the host's filesystem, for telling which sockets it could reach. */
export interface SandboxView {
  /** Bound from the host at their own paths (the workspace, the writable paths): seen. */
  shown: string[];
  /** Not the host's (its own `/tmp`, `/dev` and `/proc`) or hidden: not seen. */
  unseen: string[];
}

/**
 * The Unix sockets the host has bound to a path that a sandbox would see, each once, links
 * resolved: `connect()` on a socket's path reaches it from any network namespace, and a read-only
 * mount does not stop it (the kernel's write check skips sockets), so the sandbox covers each with
 * `socketMask`. Listed by the kernel for the worker's
 * network namespace as the sandbox starts; sockets bound later, by a relative path, or by a
 * process in another network namespace are not known. Abstract addresses (`@name`) belong to the
 * namespace, and the sandbox has one of its own.
 */
export async function hostSockets(view: SandboxView, listing = UNIX_SOCKETS): Promise<string[]> {
  const text = await readFile(listing, 'latin1').catch((error: unknown) => {
    throw new Error(`Cannot read ${listing}, which lists the host's Unix sockets to keep from the sandbox: ${error}`);
  });
  // Sockets crowd in few folders (`/run/user/…`, `/tmp/…`): each folder's links are resolved once.
  const folders = new Map<string, Promise<string | undefined>>();
  const realFolder = (folder: string) => {
    if (!folders.has(folder))
      folders.set(
        folder,
        realpath(folder).catch(() => undefined),
      );
    return folders.get(folder)!;
  };
  const found = await Promise.all(
    boundPaths(text).map(async (path) => {
      const folder = await realFolder(dirname(path));
      const real = folder === undefined ? undefined : join(folder, basename(path));
      if (real === undefined || !seen(real, view)) return undefined;
      // The socket may be gone and its path taken by a file (or a link) since: that is no business of this.
      return (await lstat(real).catch(() => undefined))?.isSocket() ? real : undefined;
    }),
  );
  return [...new Set(found.filter((path): path is string => path !== undefined))].sort();
}

/** The absolute paths sockets are bound to; a path with a newline in it goes on over the next lines. */
export function boundPaths(listing: string): string[] {
  const paths: (string | undefined)[] = [];
  const lines = listing.split('\n').slice(1);
  if (lines.at(-1) === '') lines.pop();
  for (const line of lines) {
    const entry = ENTRY.exec(line);
    if (entry) paths.push(entry[1]);
    else if (paths.length > 0 && paths[paths.length - 1] !== undefined) paths[paths.length - 1] += `\n${line}`;
  }
  return [...new Set(paths.filter((path): path is string => path?.startsWith('/') ?? false))];
}

/** Whether the sandbox sees a path of the host: the deepest of its mounts holding the path decides. */
function seen(path: string, view: SandboxView): boolean {
  const holds = (folder: string) => path === folder || path.startsWith(folder === '/' ? '/' : `${folder}/`);
  const deepest = (folders: string[]) => Math.max(-1, ...folders.filter(holds).map((folder) => folder.length));
  // The host's root is shown; a path both bound and hidden is hidden (bubblewrap mounts the hiding last).
  return deepest(['/', ...view.shown]) > deepest(view.unseen);
}

/**
 * The file bound over each host socket: empty, mode 000, so `connect()` fails with EACCES
 * ("Permission denied"), which programs print with the path, rather than ECONNREFUSED, which reads
 * as a service that is down. Made once in `folder` (the worker's `loom-sandbox`).
 */
export async function socketMask(folder: string): Promise<string> {
  const path = `${folder}/host-socket`;
  await writeFile(path, '', { mode: 0, flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  await chmod(path, 0);
  return path;
}
