import type { MessageRecords } from '../../activities/store/messages.js';
import type { PartRecords } from '../../activities/store/parts.js';
import type { SessionRecords } from '../../activities/store/sessions.js';
import type { TodoRecords } from '../../activities/store/todos.js';
import { exportIssues, importedSession, SessionExport, type ImportPlace } from '../../core/records/session-export.js';
import { InputError } from '../input-error.js';

type Store = SessionRecords & MessageRecords & PartRecords & TodoRecords;

/**
 * A session in OpenCode's export shape, `todos` included (empty when it has none); undefined when
 * the store does not hold it.
 */
export async function exportSession(store: Store, sessionId: string): Promise<SessionExport | undefined> {
  const info = await store.getSession(sessionId);
  if (!info) return undefined;
  return { info, messages: await store.messages(sessionId), todos: await store.todos(sessionId) };
}

/**
 * Reads an export (`loom export`'s JSON text) and checks it; the error names the file and each key
 * at fault.
 */
export function parseSessionExport(text: string, file: string): SessionExport {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new InputError(`${file} is not JSON: ${(error as Error).message}`);
  }
  const parsed = SessionExport.safeParse(json);
  if (!parsed.success) {
    throw new InputError(`${file} is not a session export (as \`loom export\` writes): ${exportIssues(parsed.error)}`);
  }
  return parsed.data;
}

/**
 * Stores an export as a new session (new ids, the same transcript); returns its id. Written
 * session first, so that an import that fails half-way is deleted whole.
 */
export async function importSession(store: Store, exported: SessionExport, place: ImportPlace): Promise<string> {
  const { session, messages } = importedSession(exported, place);
  await store.saveSession(session);
  try {
    for (const { info, parts } of messages) {
      await store.saveMessage(info);
      for (const part of parts) await store.savePart(part);
    }
    if (exported.todos?.length) await store.saveTodos(session.id, exported.todos);
  } catch (error) {
    await store.removeSession(session.id).catch(() => undefined);
    throw error;
  }
  return session.id;
}
