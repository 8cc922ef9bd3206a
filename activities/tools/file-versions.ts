import { stat } from 'node:fs/promises';
import { ToolError, type ToolContext } from './tool-handler.js';

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
  const current = await stat(path).catch(() => undefined);
  if (!current) return;
  const read = await context.store.fileReadMtime(context.sessionId, path);
  if (read === undefined) {
    throw new ToolError(`You must read ${path} before changing it. Read it with the read tool first, then try again.`);
  }
  if (current.mtimeMs !== read) {
    throw new ToolError(
      `${path} has changed on disk since you last read it (modified ${iso(current.mtimeMs)}, you read the version of ${iso(read)}). Read it again before changing it.`,
    );
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
