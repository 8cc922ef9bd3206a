import { Message, type AssistantMessage, type Tokens } from '../../core/message.js';
import { all, one, type Queryable } from './postgres-queries.js';

/** Questions the PostgreSQL store answers from a session's messages and parts (JSON queries). */

export async function compactionStart(db: Queryable, sessionID: string): Promise<string | undefined> {
  const { rows } = await db.query<{ message_id: string }>(
    `SELECT message_id FROM part WHERE session_id = $1 AND data->>'type' = 'compaction' ORDER BY id DESC LIMIT 20`,
    [sessionID],
  );
  for (const { message_id: request } of rows) {
    const summary = await one(
      db,
      `SELECT data FROM message WHERE session_id = $1 AND id > $2 AND data->'summary' = 'true'::jsonb ORDER BY id LIMIT 1`,
      [sessionID, request],
      Message,
    );
    if (summary?.role === 'assistant' && summary.finish && !summary.error) return request;
  }
  return undefined;
}

export async function lastFinishedStep(db: Queryable, sessionID: string): Promise<AssistantMessage | undefined> {
  const recent = await all(db, `SELECT data FROM message WHERE session_id = $1 AND data->>'role' = 'assistant' ORDER BY id DESC LIMIT 20`, [sessionID], Message);
  for (const message of recent) {
    if (message.role === 'assistant' && message.finish && !message.summary && !message.error) return message;
  }
  return undefined;
}

export async function usage(db: Queryable, sessionID: string): Promise<{ tokens: Tokens; cost: number }> {
  const sum = (path: string) => `COALESCE(SUM((data #>> '{${path}}')::float8), 0)`;
  const { rows } = await db.query<Record<'input' | 'output' | 'reasoning' | 'cacheRead' | 'cacheWrite' | 'cost', number>>(
    `SELECT ${sum('tokens,input')} AS input, ${sum('tokens,output')} AS output, ${sum('tokens,reasoning')} AS reasoning,
            ${sum('tokens,cache,read')} AS "cacheRead", ${sum('tokens,cache,write')} AS "cacheWrite", ${sum('cost')} AS cost
     FROM message WHERE session_id = $1 AND data->>'role' = 'assistant'`,
    [sessionID],
  );
  const row = rows[0];
  return {
    tokens: { input: row.input, output: row.output, reasoning: row.reasoning, cache: { read: row.cacheRead, write: row.cacheWrite } },
    cost: row.cost,
  };
}

/** Whether rows of the session (its messages, parts, own row and permission requests) newer than the cursor are committed; no lock. */
export async function changedSince(db: Queryable, sessionID: string, since: number): Promise<boolean> {
  const { rows } = await db.query<{ changed: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM message WHERE session_id = $1 AND rev > $2)
         OR EXISTS (SELECT 1 FROM part WHERE session_id = $1 AND rev > $2)
         OR EXISTS (SELECT 1 FROM session WHERE id = $1 AND rev > $2)
         OR EXISTS (SELECT 1 FROM permission_request WHERE session_id = $1 AND rev > $2) AS changed`,
    [sessionID, since],
  );
  return rows[0].changed;
}

/** Whether anything took a revision after the cursor (committed or not: a hint to look). */
export async function anyChangeSince(db: Queryable, since: number): Promise<boolean> {
  const { rows } = await db.query<{ changed: boolean }>('SELECT (CASE WHEN is_called THEN last_value ELSE 0 END) > $1 AS changed FROM revision', [since]);
  return rows[0].changed;
}
