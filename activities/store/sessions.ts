import { Session, type SessionStatus } from '../../core/records/session.js';
import { NotFoundError } from './not-found-error.js';

/** Which sessions `listSessions` returns; `limit` counts what is left after the other filters. */
export interface ListSessionsOptions {
  roots?: boolean;
  directory?: string;
  limit?: number;
}

export interface SessionRecords {
  saveSession(session: Session): Promise<void>;
  getSession(id: string): Promise<Session | undefined>;
  /**
   * Newest first. `roots` leaves out child sessions; `directory` keeps only the sessions of that
   * project folder (by `project`, for a session that works in a copy of it).
   */
  listSessions(options?: ListSessionsOptions): Promise<Session[]>;
  children(parentId: string): Promise<Session[]>;
  setSessionStatus(id: string, status: SessionStatus, now: number): Promise<void>;
  /**
   * Deletes one session and everything kept of it (messages, parts, removal rows, todos, file reads,
   * permission requests, its tree's approvals when it is a root, prompts), in one transaction,
   * leaving a removal row with its last state for followers. Its children are not touched: the
   * caller deletes a subtree child-first. Batches keep their tasks' outcomes. Unknown ids are ignored.
   */
  removeSession(id: string): Promise<void>;
}

/** Session rows as a dialect stores them; what it is given is already validated. */
export interface SessionRows {
  /** Writes the session at a new revision. */
  upsert(session: Session): Promise<void>;
  /** Reads the session, and writes what `change` makes of it at a new revision, in one transaction. */
  modify(id: string, change: (current: Session | undefined) => Session): Promise<void>;
  get(id: string): Promise<Session | undefined>;
  list(options: ListSessionsOptions): Promise<Session[]>;
  children(parentId: string): Promise<Session[]>;
  /** Deletes the session and its rows in every table, leaving a removal row, in one transaction. */
  remove(id: string): Promise<void>;
}

export function sessionRecords(rows: SessionRows): SessionRecords {
  return {
    saveSession: async (session) => rows.upsert(Session.parse(session)),
    getSession: async (id) => rows.get(id),
    listSessions: async (options = {}) => rows.list(options),
    children: async (parentId) => rows.children(parentId),
    setSessionStatus: async (id, status, now) =>
      rows.modify(id, (session) => {
        if (!session) throw new NotFoundError(`Unknown session "${id}"`);
        return Session.parse({ ...session, status, time: { ...session.time, updated: now } });
      }),
    removeSession: async (id) => rows.remove(id),
  };
}
