import { z } from 'zod';
import { idSequence, nextId } from './ids.js';
import { Message, type MessageWithParts } from './message.js';
import { copyTranscript } from './transcript-copy.js';
import { Part } from './part.js';
import { Session } from './session.js';
import { Todo } from './todo.js';

/**
 * A session as `loom export` writes it: OpenCode's export shape (`opencode export`), `{ info,
 * messages: [{ info, parts }], todos }`, with Loom's own session, message and part documents.
 * Subagents' sessions are not in it (their `task` parts keep their outputs).
 */
export const SessionExport = z.object({
  info: Session,
  messages: z.array(z.object({ info: Message, parts: z.array(Part) })),
  todos: z.array(Todo).optional(),
});
export type SessionExport = z.infer<typeof SessionExport>;

/** Where an imported session lives: its new id's time, the folder and host it works in. */
export interface ImportPlace {
  now: number;
  random: () => number;
  directory: string;
  host: string;
}

/**
 * An exported session as a new one: new ids for the session, its messages and parts (in the
 * order they came), every reference between them remapped; idle, updated now, without a parent.
 * Prompt ids are dropped: they name prompts stored for the exported session.
 */
export function importedSession(
  exported: SessionExport,
  place: ImportPlace,
): { session: Session; messages: MessageWithParts[] } {
  const sessionId = nextId('ses', idSequence(place.now), place.random);
  const { info } = exported;
  const session: Session = {
    id: sessionId,
    title: info.title,
    agent: info.agent,
    model: info.model,
    directory: place.directory,
    host: place.host,
    status: 'idle',
    ...(info.permission ? { permission: info.permission } : {}),
    time: { created: info.time.created, updated: place.now },
  };
  // Snapshots of files are the exporting machine's: an imported session's steps keep no patches.
  const messages = copyTranscript(exported.messages, sessionId, {
    now: place.now,
    random: place.random,
    keepPatches: false,
  });
  return { session, messages };
}

/** The path and message of each problem zod found, for an error that names the key at fault. */
export function exportIssues(error: z.ZodError): string {
  const shown = error.issues.slice(0, 5).map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  const more = error.issues.length > 5 ? `; and ${error.issues.length - 5} more` : '';
  return shown.join('; ') + more;
}
