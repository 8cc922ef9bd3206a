import { mkdir, mkdtemp, readdir, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Where the sandboxes' own `/tmp` folders live. A session's commands share one, `ses_<id>`, kept
 * between its calls (a script written to /tmp by one call is run by the next) and dated at each
 * use; `loom rm` removes it, and one no command used for a day goes at the next sweep. Other
 * processes (an MCP server) get `tmp-<worker pid>-<random>`, removed when they end, or at the
 * next sweep once that worker is gone.
 */
export function sandboxRoot(): string {
  return join(tmpdir(), 'loom-sandbox');
}

/** How long a session's `/tmp` is kept unused. */
export const SESSION_TMP_KEPT_MS = 24 * 60 * 60 * 1000;

const PROCESS_FOLDER = /^tmp-(\d+)-/;
/** Session folders, and the `mcp-<server>` ones of Loom 0.3.0. */
const DATED_FOLDER = /^(ses_|mcp-)/;

/** The session's `/tmp`, made if needed and dated now. */
export async function sessionTmpFolder(root: string, sessionId: string): Promise<string> {
  const folder = join(root, sessionTmpName(sessionId));
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const now = new Date();
  await utimes(folder, now, now);
  return folder;
}

/** A `/tmp` for one process, removed with `removeTmpFolder` when it ends. */
export function processTmpFolder(root: string): Promise<string> {
  return mkdtemp(join(root, `tmp-${process.pid}-`));
}

export async function removeTmpFolder(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true }).catch(() => undefined);
}

/** What `loom rm` removes with a session on this machine. */
export function removeSessionTmpFolder(sessionId: string): Promise<void> {
  return removeTmpFolder(join(sandboxRoot(), sessionTmpName(sessionId)));
}

function sessionTmpName(sessionId: string): string {
  return sessionId.replace(/[^A-Za-z0-9_-]/g, '_');
}

let swept = false;

/** Once per worker: folders of workers that ended without removing them, and sessions' unused for a day. */
export async function sweepTmpFolders(root: string, now = Date.now()): Promise<void> {
  if (swept) return;
  swept = true;
  const names = await readdir(root).catch(() => []);
  await Promise.all(
    names.map(async (name) => {
      const pid = PROCESS_FOLDER.exec(name)?.[1];
      if (pid && !running(Number(pid))) return removeTmpFolder(join(root, name));
      if (!DATED_FOLDER.test(name)) return;
      const used = (await stat(join(root, name)).catch(() => undefined))?.mtimeMs;
      if (used !== undefined && now - used > SESSION_TMP_KEPT_MS) await removeTmpFolder(join(root, name));
    }),
  );
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
