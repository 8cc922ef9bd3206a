import { constants, existsSync, lstatSync, readlinkSync, realpathSync, type Dirent } from 'node:fs';
import { lstat, mkdir, open, readdir, unlink, type FileHandle } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { ToolError } from '../running/tool-handler.js';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;
/**
 * Linux's O_PATH (Node does not name it; this is its value on every architecture Node runs on):
 * the walk's folders are opened only to look names up in them, which a folder the worker may
 * enter but not list (mode 711) allows.
 */
const O_PATH = 0o10000000;

/**
 * What a file tool does with the file: read it, list it (a folder), or write it (creating it and
 * its missing folders; never truncated here, the caller truncates the handle it got).
 */
export type OpenFor = 'read' | 'list' | 'write';

/**
 * The file tools run in the worker, outside the sandbox, while a sandboxed process of the session
 * may change the project at any moment: a link planted between a tool's check of a path and its
 * use would take it out of the project. So a tool opens `real`, the path as it was checked (links
 * resolved, `resolveChecked`), without following any link: on Linux, folder by folder from `/`,
 * each opened with `O_NOFOLLOW` through `/proc/self/fd/<folder>/<name>` (the kernel resolves that
 * to the folder already open, so `name` is looked up in it); elsewhere it opens, then checks that
 * what it opened is still what the path names. A component that became a link, or a file that is
 * no regular file (a FIFO would block), is refused with an error naming it, and nothing outside is
 * created, truncated or read.
 */
export function openChecked(real: string, how: OpenFor): Promise<FileHandle> {
  return PROC_FD ? openByWalk(real, how) : openThenRecheck(real, how);
}

const PROC_FD = process.platform === 'linux' && existsSync('/proc/self/fd');

/** The file's content, opened as `openChecked` opens it. */
export async function readChecked(real: string): Promise<Buffer> {
  const handle = await openChecked(real, 'read');
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** Writes the file whole (created, with its folders, when missing), opened as `openChecked` opens it. */
export async function writeChecked(real: string, content: string): Promise<void> {
  const handle = await openChecked(real, 'write');
  try {
    await handle.truncate(0);
    await handle.writeFile(content);
  } finally {
    await handle.close();
  }
}

/** The folder's entries, opened as `openChecked` opens it. */
export async function listChecked(real: string): Promise<Dirent[]> {
  const handle = await openChecked(real, 'list');
  try {
    return await readdir(PROC_FD ? fdPath(handle) : real, { withFileTypes: true });
  } finally {
    await handle.close();
  }
}

/** The openat-like walk (Linux): no component of `real` is ever followed if it is a link. */
export async function openByWalk(real: string, how: OpenFor): Promise<FileHandle> {
  const names = real.split(sep).filter(Boolean);
  const last = names.pop();
  let folder = await open('/', O_PATH | O_DIRECTORY);
  let at = '/';
  try {
    for (const name of names) {
      at = join(at, name);
      const next = await openFolder(folder, name, at, real, how);
      await folder.close();
      folder = next;
    }
    if (last === undefined) throw new ToolError(`${real} is a directory, not a file.`);
    const path = join(at, last);
    const final = how === 'list' ? O_PATH | O_DIRECTORY | O_NOFOLLOW : flags(how);
    const handle = await open(`${fdPath(folder)}/${last}`, final, 0o666).catch((error: unknown) => {
      throw refusal(error, path, real, how);
    });
    return await usable(handle, real, how);
  } finally {
    await folder.close();
  }
}

/** The next folder of the walk, made when missing and the file is being written. */
async function openFolder(
  folder: FileHandle,
  name: string,
  at: string,
  real: string,
  how: OpenFor,
): Promise<FileHandle> {
  const path = `${fdPath(folder)}/${name}`;
  const opening = () => open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW);
  try {
    return await opening();
  } catch (error) {
    if (how !== 'write' || (error as NodeJS.ErrnoException).code !== 'ENOENT') throw refusal(error, at, real, how);
  }
  // `mkdir` makes no folder through a link; one that appeared meanwhile is opened as any other.
  await mkdir(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw refusal(error, at, real, how);
  });
  return opening().catch((error: unknown) => {
    throw refusal(error, at, real, how);
  });
}

/**
 * Elsewhere: open `real` (the last component without following a link, a new file only when none
 * is there), then check that its folder still resolves to itself and that the path still names
 * what was opened. A file made through a link that appeared meanwhile is removed again.
 */
export async function openThenRecheck(real: string, how: OpenFor): Promise<FileHandle> {
  // No component of a checked path is a link: one that is now was planted since.
  const link = firstLink(real);
  if (link) throw changed(link, real, how);
  if (how === 'write') await makeFolders(dirname(real), real);
  let created = false;
  let handle: FileHandle;
  try {
    handle = await open(real, how === 'write' ? flags(how) | O_EXCL : flags(how), 0o666);
    created = how === 'write';
  } catch (error) {
    if (how !== 'write' || (error as NodeJS.ErrnoException).code !== 'EEXIST') throw refusal(error, real, real, how);
    handle = await open(real, flags(how), 0o666).catch((again: unknown) => {
      throw refusal(again, real, real, how);
    });
  }
  try {
    const opened = await handle.stat();
    const named = await lstat(real).catch(() => undefined);
    if (realpathSync(dirname(real)) !== dirname(real) || named?.ino !== opened.ino || named.dev !== opened.dev) {
      if (created && named?.ino === opened.ino && named.dev === opened.dev) await unlink(real).catch(() => undefined);
      throw changed(firstLink(real) ?? real, real, how);
    }
    return await usable(handle, real, how);
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Makes the missing folders of `folder` one by one, each checked to be itself (no link on the way). */
async function makeFolders(folder: string, real: string): Promise<void> {
  if (!existsSync(folder)) {
    await makeFolders(dirname(folder), real);
    await mkdir(folder).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  }
  if (lstatSync(folder).isSymbolicLink() || realpathSync(folder) !== folder)
    throw changed(firstLink(folder) ?? folder, real, 'write');
}

function flags(how: OpenFor): number {
  // O_NONBLOCK: a FIFO must not hold the tool until someone writes to it (regular files ignore it).
  if (how === 'write') return O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK;
  if (how === 'list') return O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
  return O_RDONLY | O_NOFOLLOW | O_NONBLOCK;
}

/** The handle, when it is what the tool may use: a regular file to read or write, a folder to list. */
async function usable(handle: FileHandle, real: string, how: OpenFor): Promise<FileHandle> {
  const info = await handle.stat().catch(async (error: unknown) => {
    await handle.close();
    throw error;
  });
  if (how === 'list' ? info.isDirectory() : info.isFile()) return handle;
  await handle.close();
  throw new ToolError(
    info.isDirectory()
      ? `${real} is a directory, not a file.`
      : `${real} is not a regular file: the file tools cannot ${how} it.`,
  );
}

function fdPath(handle: FileHandle): string {
  return `/proc/self/fd/${handle.fd}`;
}

/** Why opening `path` (a component of `real`) failed, as the model should read it. */
function refusal(error: unknown, path: string, real: string, how: OpenFor): Error {
  const code = (error as NodeJS.ErrnoException).code;
  const kind = kindOf(path);
  if ((code === 'ELOOP' || code === 'ENOTDIR') && kind === 'link') return changed(path, real, how);
  if (code === 'ENOTDIR' && kind === 'other')
    return new ToolError(
      path === real ? `${real} is not a folder.` : `Cannot ${how} ${real}: ${path} is not a folder.`,
    );
  if (code === 'EISDIR') return new ToolError(`${real} is a directory, not a file.`);
  if (code === 'ENOENT') return new ToolError(`Cannot ${how} ${real}: ${path} does not exist (any more).`);
  if (code === 'ENXIO') return new ToolError(`${real} is not a regular file: the file tools cannot ${how} it.`);
  return error instanceof Error ? error : new Error(String(error));
}

/** The refusal for a component that is a link where the checked path had none. */
function changed(path: string, real: string, how: OpenFor): ToolError {
  let target = '';
  try {
    target = ` (to ${readlinkSync(path)})`;
  } catch {
    // Gone again: the name is enough.
  }
  const what =
    path === real
      ? `${real} became a link${target} after the path was checked`
      : `Cannot ${how} ${real}: ${path} became a link${target} after the path was checked`;
  const nothing = how === 'write' ? 'nothing was written' : 'nothing was read';
  return new ToolError(`${what}, so the ${how === 'write' ? 'write' : 'read'} could leave the project; ${nothing}.`);
}

function kindOf(path: string): 'link' | 'other' | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? 'link' : 'other';
  } catch {
    return undefined;
  }
}

/** The first component of `path` that is a link now, if any. */
function firstLink(path: string): string | undefined {
  let at = '/';
  for (const name of path.split(sep).filter(Boolean)) {
    at = join(at, name);
    if (kindOf(at) === 'link') return at;
  }
  return undefined;
}
