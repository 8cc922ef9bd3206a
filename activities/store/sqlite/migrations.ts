import type Database from 'better-sqlite3';

/** Schema versions, applied in order; `PRAGMA user_version` records how many have run. */
export const migrations: string[] = [
  `
  CREATE TABLE session (
    id TEXT PRIMARY KEY,
    parent_id TEXT,
    time_updated INTEGER NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX session_parent ON session(parent_id);
  CREATE INDEX session_updated ON session(time_updated);

  CREATE TABLE message (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    rev INTEGER NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX message_session ON message(session_id, id);
  CREATE INDEX message_rev ON message(session_id, rev);

  CREATE TABLE part (
    id TEXT PRIMARY KEY,
    message_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    rev INTEGER NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX part_message ON part(message_id, id);
  CREATE INDEX part_rev ON part(session_id, rev);

  CREATE TABLE revision (id INTEGER PRIMARY KEY CHECK (id = 1), value INTEGER NOT NULL);
  INSERT INTO revision (id, value) VALUES (1, 0);
  `,
  `
  -- When a session last read a file, so edits of files changed since then are refused.
  CREATE TABLE file_read (
    session_id TEXT NOT NULL,
    path TEXT NOT NULL,
    mtime REAL NOT NULL,
    PRIMARY KEY (session_id, path)
  );

  CREATE TABLE todo (
    session_id TEXT PRIMARY KEY,
    data TEXT NOT NULL
  );
  `,
  `
  -- Tool calls waiting for a person's approval, and what they answered.
  CREATE TABLE permission_request (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    root_id TEXT NOT NULL,
    status TEXT NOT NULL,
    data TEXT NOT NULL
  );
  CREATE INDEX permission_request_status ON permission_request(status, root_id);

  -- "Always" approvals, kept for a whole session tree.
  CREATE TABLE approved_rule (
    root_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    permission TEXT NOT NULL,
    pattern TEXT NOT NULL,
    PRIMARY KEY (root_id, permission, pattern)
  );
  `,
  `
  -- Batches of tasks, and each task's definition and outcome.
  CREATE TABLE batch (
    id TEXT PRIMARY KEY,
    time_created INTEGER NOT NULL,
    data TEXT NOT NULL
  );
  CREATE TABLE batch_task (
    batch_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    task TEXT NOT NULL,
    session_id TEXT,
    outcome TEXT NOT NULL,
    PRIMARY KEY (batch_id, idx)
  );
  `,
  `
  -- Finding a session's compactions without reading every part.
  CREATE INDEX part_type ON part(session_id, json_extract(data, '$.type'));
  `,
  `
  -- Prompts, stored before a run is told their id: workflow history carries ids, not text.
  CREATE TABLE prompt (
    id TEXT PRIMARY KEY,
    session_id TEXT,
    time_created INTEGER NOT NULL,
    text TEXT NOT NULL
  );
  `,
  `
  -- The project part of workspaces' configuration, by content-derived id: model calls on workers
  -- without the workspace read it here. Rows never change.
  CREATE TABLE workspace_snapshot (
    id TEXT PRIMARY KEY,
    data TEXT NOT NULL
  );
  `,
  `
  -- The store's feed of every change (\`loom serve\`'s event stream): sessions, permission requests
  -- and batches take revisions too, and deleted parts leave a row saying so.
  ALTER TABLE session ADD COLUMN rev INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE permission_request ADD COLUMN rev INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE batch ADD COLUMN rev INTEGER NOT NULL DEFAULT 0;
  CREATE TABLE part_removed (
    id TEXT PRIMARY KEY,
    message_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    rev INTEGER NOT NULL
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
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    rev INTEGER NOT NULL
  );
  CREATE INDEX message_removed_feed ON message_removed(rev);
  CREATE INDEX message_removed_session ON message_removed(session_id, rev);
  CREATE TABLE session_removed (
    id TEXT PRIMARY KEY,
    rev INTEGER NOT NULL,
    data TEXT NOT NULL
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
    tokens REAL,
    cost REAL
  );
  CREATE INDEX batch_task_session ON batch_task(session_id);
  `,
  `
  -- Provider rate limits, shared by every worker using the store: one row per provider and key (and
  -- per model, for a model's own limit). Times are epoch milliseconds; see activities/store/rate-limits.ts.
  CREATE TABLE rate_limit (
    key TEXT PRIMARY KEY,
    next_at INTEGER NOT NULL DEFAULT 0,
    blocked_until INTEGER NOT NULL DEFAULT 0,
    tokens_until INTEGER NOT NULL DEFAULT 0,
    strikes INTEGER NOT NULL DEFAULT 0
  );
  `,
  `
  -- What a person trusts of each session directory's configuration, and a change an agent's work
  -- made since, waiting for a person (activities/config/trust.ts). JSON text in \`trusted\` and \`pending\`.
  CREATE TABLE config_trust (
    directory TEXT PRIMARY KEY,
    trusted_id TEXT NOT NULL,
    trusted TEXT NOT NULL,
    time INTEGER NOT NULL,
    pending TEXT
  );
  `,
];

/** Brings the schema up to date, under the write lock: a worker and the CLI may open a new file at once. */
export function migrateSqlite(db: Database.Database, file: string): void {
  db.transaction(() => {
    const applied = db.pragma('user_version', { simple: true }) as number;
    if (applied > migrations.length) {
      throw new Error(
        `Session store ${file} has schema version ${applied}, newer than this Loom (${migrations.length}). Upgrade Loom.`,
      );
    }
    for (let version = applied; version < migrations.length; version++) {
      db.exec(migrations[version]);
      db.pragma(`user_version = ${version + 1}`);
    }
  }).immediate();
}
