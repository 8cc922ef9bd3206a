import type pg from 'pg';

/** Advisory lock keys (one namespace for Loom, one key per purpose). */
export const LOCK_NAMESPACE = 0x4c6f6f6d;
export const MIGRATION_LOCK = 1;
/** Held shared by every transaction that takes a revision, exclusive by a reader fixing a cursor. */
export const REVISION_LOCK = 2;
/**
 * The first key of each session's (or batch's) writer lock, whose second key is `hashtext` of its
 * id: held exclusive by every transaction that takes revisions for its rows.
 */
export const SUBJECT_LOCK_NAMESPACE = 0x4c6f6f6e;

/**
 * Schema versions, applied in order; `loom_schema.version` records how many have run. The same
 * shape as SQLite's (id columns + a `data` document), with ids in "C" collation so that `ORDER BY
 * id` sorts as SQLite does, and a sequence for revisions so writers on many machines never wait on
 * a counter row.
 */
export const postgresMigrations: string[] = [
  `
  CREATE TABLE session (
    id TEXT COLLATE "C" PRIMARY KEY,
    parent_id TEXT COLLATE "C",
    time_updated BIGINT NOT NULL,
    data JSONB NOT NULL
  );
  CREATE INDEX session_parent ON session(parent_id);
  CREATE INDEX session_updated ON session(time_updated);

  CREATE TABLE message (
    id TEXT COLLATE "C" PRIMARY KEY,
    session_id TEXT COLLATE "C" NOT NULL,
    rev BIGINT NOT NULL,
    data JSONB NOT NULL
  );
  CREATE INDEX message_session ON message(session_id, id);
  CREATE INDEX message_rev ON message(session_id, rev);

  CREATE TABLE part (
    id TEXT COLLATE "C" PRIMARY KEY,
    message_id TEXT COLLATE "C" NOT NULL,
    session_id TEXT COLLATE "C" NOT NULL,
    rev BIGINT NOT NULL,
    data JSONB NOT NULL
  );
  CREATE INDEX part_message ON part(message_id, id);
  CREATE INDEX part_rev ON part(session_id, rev);
  CREATE INDEX part_type ON part(session_id, (data->>'type'));

  CREATE SEQUENCE revision;

  -- When a session last read a file, so edits of files changed since then are refused.
  CREATE TABLE file_read (
    session_id TEXT COLLATE "C" NOT NULL,
    path TEXT NOT NULL,
    mtime DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (session_id, path)
  );

  CREATE TABLE todo (
    session_id TEXT COLLATE "C" PRIMARY KEY,
    data JSONB NOT NULL
  );

  -- Tool calls waiting for a person's approval, and what they answered.
  CREATE TABLE permission_request (
    id TEXT COLLATE "C" PRIMARY KEY,
    session_id TEXT COLLATE "C" NOT NULL,
    root_id TEXT COLLATE "C" NOT NULL,
    status TEXT NOT NULL,
    data JSONB NOT NULL
  );
  CREATE INDEX permission_request_status ON permission_request(status, root_id);

  -- "Always" approvals, kept for a whole session tree.
  CREATE TABLE approved_rule (
    root_id TEXT COLLATE "C" NOT NULL,
    seq INTEGER NOT NULL,
    permission TEXT NOT NULL,
    pattern TEXT NOT NULL,
    PRIMARY KEY (root_id, permission, pattern)
  );

  -- Batches of tasks, and each task's definition and outcome.
  CREATE TABLE batch (
    id TEXT COLLATE "C" PRIMARY KEY,
    time_created BIGINT NOT NULL,
    data JSONB NOT NULL
  );
  CREATE TABLE batch_task (
    batch_id TEXT COLLATE "C" NOT NULL,
    idx INTEGER NOT NULL,
    task JSONB NOT NULL,
    session_id TEXT COLLATE "C",
    outcome JSONB NOT NULL,
    PRIMARY KEY (batch_id, idx)
  );

  -- Prompts, stored before a run is told their id: workflow history carries ids, not text.
  CREATE TABLE prompt (
    id TEXT COLLATE "C" PRIMARY KEY,
    session_id TEXT COLLATE "C",
    time_created BIGINT NOT NULL,
    text TEXT NOT NULL
  );
  `,
  `
  -- The project part of workspaces' configuration, by content-derived id: model calls on workers
  -- without the workspace read it here. Rows never change; \`data\` is JSON text, kept as written.
  CREATE TABLE workspace_snapshot (
    id TEXT COLLATE "C" PRIMARY KEY,
    data TEXT NOT NULL
  );
  `,
  `
  -- The store's feed of every change (\`loom serve\`'s event stream): sessions, permission requests
  -- and batches take revisions too, and deleted parts leave a row saying so.
  ALTER TABLE session ADD COLUMN rev BIGINT NOT NULL DEFAULT 0;
  ALTER TABLE permission_request ADD COLUMN rev BIGINT NOT NULL DEFAULT 0;
  ALTER TABLE batch ADD COLUMN rev BIGINT NOT NULL DEFAULT 0;
  CREATE TABLE part_removed (
    id TEXT COLLATE "C" PRIMARY KEY,
    message_id TEXT COLLATE "C" NOT NULL,
    session_id TEXT COLLATE "C" NOT NULL,
    rev BIGINT NOT NULL
  );
  CREATE INDEX session_feed ON session(rev);
  CREATE INDEX message_feed ON message(rev);
  CREATE INDEX part_feed ON part(rev);
  CREATE INDEX permission_request_feed ON permission_request(rev);
  CREATE INDEX batch_feed ON batch(rev);
  CREATE INDEX part_removed_feed ON part_removed(rev);
  `,
  `
  -- Deleted messages and sessions leave a row saying so, as deleted parts do (the event stream's
  -- \`message.removed\` and \`session.deleted\`); a session's keeps its last state. Indexes to find
  -- everything of one session when it is deleted.
  CREATE TABLE message_removed (
    id TEXT COLLATE "C" PRIMARY KEY,
    session_id TEXT COLLATE "C" NOT NULL,
    rev BIGINT NOT NULL
  );
  CREATE INDEX message_removed_feed ON message_removed(rev);
  CREATE INDEX message_removed_session ON message_removed(session_id, rev);
  CREATE TABLE session_removed (
    id TEXT COLLATE "C" PRIMARY KEY,
    rev BIGINT NOT NULL,
    data JSONB NOT NULL
  );
  CREATE INDEX session_removed_feed ON session_removed(rev);
  CREATE INDEX part_removed_session ON part_removed(session_id, rev);
  CREATE INDEX permission_request_session ON permission_request(session_id);
  CREATE INDEX prompt_session ON prompt(session_id);
  `,
  `
  -- Budgets (tokens, dollars) of session trees and batches, by the session or batch they cover.
  CREATE TABLE budget (
    owner_id TEXT PRIMARY KEY,
    tokens DOUBLE PRECISION,
    cost DOUBLE PRECISION
  );
  CREATE INDEX batch_task_session ON batch_task(session_id);
  `,
  `
  -- Provider rate limits, shared by every worker using the store: one row per provider and key (and
  -- per model, for a model's own limit). Times are epoch milliseconds; see activities/store/rate-limits.ts.
  CREATE TABLE rate_limit (
    key TEXT COLLATE "C" PRIMARY KEY,
    next_at BIGINT NOT NULL DEFAULT 0,
    blocked_until BIGINT NOT NULL DEFAULT 0,
    tokens_until BIGINT NOT NULL DEFAULT 0,
    strikes INTEGER NOT NULL DEFAULT 0
  );
  `,
  `
  -- What a person trusts of each session directory's configuration, and a change an agent's work
  -- made since, waiting for a person (activities/config/trust.ts). JSON text in \`trusted\` and \`pending\`.
  CREATE TABLE config_trust (
    directory TEXT COLLATE "C" PRIMARY KEY,
    trusted_id TEXT NOT NULL,
    trusted TEXT NOT NULL,
    time BIGINT NOT NULL,
    pending TEXT
  );
  `,
];

/**
 * Brings the schema up to date once, however many workers and CLIs open the database at the same
 * moment: the whole check-and-apply runs in one transaction under an advisory lock.
 */
export async function migratePostgres(client: pg.ClientBase, where: string): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [LOCK_NAMESPACE, MIGRATION_LOCK]);
    await client.query('CREATE TABLE IF NOT EXISTS loom_schema (version INTEGER NOT NULL)');
    const { rows } = await client.query<{ version: number }>('SELECT version FROM loom_schema');
    const applied = rows[0]?.version ?? 0;
    if (applied > postgresMigrations.length) {
      throw new Error(
        `Session store ${where} has schema version ${applied}, newer than this Loom (${postgresMigrations.length}). Upgrade Loom.`,
      );
    }
    for (let version = applied; version < postgresMigrations.length; version++)
      await client.query(postgresMigrations[version]);
    if (rows.length === 0)
      await client.query('INSERT INTO loom_schema (version) VALUES ($1)', [postgresMigrations.length]);
    else await client.query('UPDATE loom_schema SET version = $1', [postgresMigrations.length]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
