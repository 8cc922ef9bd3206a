import type { SessionRecords } from '../../activities/store/sessions.js';
import { newSession } from '../../activities/session/session-activities.js';
import { newId } from '../../core/records/ids.js';
import type { Session } from '../../core/records/session.js';

export interface NewSessionOptions {
  agent: string;
  model: string;
  directory: string;
  /** The host id of the machine that holds `directory`. */
  host: string;
  title?: string;
}

/**
 * Stores a new root session with no run yet (OpenCode's `session.create`, ACP's `session/new`):
 * idle, with a default title that its first run replaces. Its first prompt goes through
 * `resumeSession`, as any later one does.
 */
export async function createEmptySession(store: SessionRecords, options: NewSessionOptions): Promise<Session> {
  const now = Date.now();
  const session: Session = {
    ...newSession({ sessionId: newId('ses', now, Math.random), ...options }, 'idle', now),
    host: options.host,
  };
  await store.saveSession(session);
  return session;
}
