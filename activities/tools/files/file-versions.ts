import { stat } from 'node:fs/promises';
import { ToolError, type ToolContext } from '../running/tool-handler.js';

type Context = Pick<ToolContext, 'store' | 'sessionId'>;

/** Records the version of a file the session has just read or written. */
export async function rememberVersion(context: Context, path: string): Promise<void> {
  const { mtimeMs } = await stat(path);
  await context.store.recordFileRead(context.sessionId, path, mtimeMs);
}

/**
 * Refuses to change an existing file the session has not read, or that changed on disk since it
 * read it: the model would be editing from a stale picture of the file.
 */
export async function assertReadVersion(context: Context, path: string): Promise<void> {
  const stale = await staleRead(context, path);
  if (stale) throw new ToolError(`${stale.message} Read it with the read tool first, then try again.`);
}

/** Why the session's picture of an existing file is stale (never read, or changed since), or undefined. */
export async function staleRead(
  context: Context,
  path: string,
): Promise<{ unread: boolean; message: string } | undefined> {
  const current = await stat(path).catch(() => undefined);
  if (!current) return undefined;
  const read = await context.store.fileReadMtime(context.sessionId, path);
  if (read === undefined) return { unread: true, message: `You must read ${path} before changing it.` };
  if (current.mtimeMs !== read) {
    return {
      unread: false,
      message: `${path} has changed on disk since you last read it (modified ${iso(current.mtimeMs)}, you read the version of ${iso(read)}).`,
    };
  }
  return undefined;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
