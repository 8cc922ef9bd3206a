import { z } from 'zod';

/** `idle`: the last run finished; `busy`: a run is working; `failed`/`cancelled`: how the last run ended. */
export const SessionStatus = z.enum(['idle', 'busy', 'failed', 'cancelled']);
export type SessionStatus = z.infer<typeof SessionStatus>;

export const RuleSchema = z.object({
  permission: z.string(),
  pattern: z.string(),
  action: z.enum(['allow', 'ask', 'deny']),
});

export const Session = z.object({
  id: z.string(),
  parentID: z.string().optional(),
  title: z.string(),
  agent: z.string(),
  model: z.string(),
  /** The project directory the session works in. */
  directory: z.string(),
  /**
   * The project it belongs to when it works in another folder: an isolated batch task's copy of the
   * batch's project. Lists of one project's sessions go by it (else by `directory`).
   */
  project: z.string().optional(),
  /** The host id of the machine that holds the directory (sessions of older versions have none). */
  host: z.string().optional(),
  status: SessionStatus,
  /** Rules of this session, evaluated after the agent's (a child inherits its parent's denies). */
  permission: z.array(RuleSchema).optional(),
  /** A subagent's session: the parent's `task` tool part that shows its progress. */
  parentPartID: z.string().optional(),
  /** Why the last run failed when no message says it: its configuration, before the first step. */
  error: z.object({ name: z.string(), message: z.string() }).optional(),
  /**
   * The session was reverted to `messageID`: those messages on are hidden from the model until
   * `loom unrevert` brings them back or the next prompt drops them. `snapshot` holds the files
   * as they were before the revert, `reverted` as it left them; `files` are those it restored.
   */
  revert: z
    .object({
      messageID: z.string(),
      partID: z.string().optional(),
      snapshot: z.string(),
      reverted: z.string().optional(),
      files: z.array(z.string()),
      conflicts: z.array(z.string()).optional(),
    })
    .optional(),
  /** A fork: the session and message it was forked from (its history is theirs before that message). */
  forkedFrom: z.object({ sessionID: z.string(), messageID: z.string().optional() }).optional(),
  time: z.object({ created: z.number(), updated: z.number() }),
});
export type Session = z.infer<typeof Session>;

export function defaultTitle(isChild: boolean, now: number): string {
  return `${isChild ? 'Child session' : 'New session'} - ${new Date(now).toISOString()}`;
}

/** The project folder a session is listed under: its own folder, unless it works in a copy of one. */
export function projectOf(session: Pick<Session, 'directory' | 'project'>): string {
  return session.project ?? session.directory;
}
