import { CHANGES_CHANNEL, MAX_PAYLOAD_BYTES } from './change-watcher.js';
import { LOCK_NAMESPACE, REVISION_LOCK, SUBJECT_LOCK_NAMESPACE } from './migrations.js';

/**
 * The locks a writer of revisions takes before its first `nextval('revision')`, as a one-row
 * query on the subject's id (`$1`): the revision lock shared (`committedCursor` waits out open
 * writers by taking it exclusive), then the subject's own lock exclusive. Holding the second until
 * commit serializes the writers of one session, so the revisions of its rows commit in order and
 * the newest one a snapshot shows is a cursor no later commit of that session falls under:
 * `changes` reads it without any lock. The shared lock comes first: a writer that held a
 * subject's lock while queued for the shared one behind a reader's exclusive request would
 * deadlock with a writer holding the shared lock and waiting for that subject. A subquery with
 * volatile functions is neither pulled up nor trimmed, and each row above it is made after it ran.
 */
export const REVISION_LOCKS = `SELECT pg_advisory_xact_lock(${SUBJECT_LOCK_NAMESPACE}, hashtext($1)) AS subject
  FROM (SELECT pg_advisory_xact_lock_shared(${LOCK_NAMESPACE}, ${REVISION_LOCK}) AS revisions) AS revision_lock`;

/**
 * `write` (a data-modifying statement over `locked` that returns `rev`) wrapped so that one
 * statement takes the locks, writes, and NOTIFYs the newest revision it took with the subject
 * (delivered at commit; none when it wrote nothing, or when the id is too long for a payload).
 * `before` names more queries `write` reads from (data-modifying ones must be at the top); any
 * that changes rows must read `locked` too, so that it locks no row before the locks are held.
 * Returns one row: `written`, how many rows `write` wrote, and `rev`, the newest revision it took.
 */
export function revisionedStatement(write: string, before = ''): string {
  return `WITH locked AS (${REVISION_LOCKS}),${before ? `\n  ${before},` : ''}
  written AS (${write}),
  newest AS (SELECT count(*)::int AS written, max(rev) AS rev FROM written)
  SELECT written, rev,
    CASE WHEN written > 0 AND octet_length($1) + 21 <= ${MAX_PAYLOAD_BYTES}
      THEN pg_notify('${CHANGES_CHANNEL}', rev::text || ' ' || $1) END AS announced
  FROM newest`;
}
