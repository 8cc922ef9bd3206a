import { Session } from '../../../core/records/session.js';
import type { SessionRows } from '../sessions.js';
import type { SqliteConnection } from './connection.js';
import { readAll, readOne } from './documents.js';

export function sqliteSessionRows(connection: SqliteConnection): SessionRows {
  const statements = {
    upsert: connection.db.prepare(
      `INSERT INTO session (id, parent_id, time_updated, rev, data) VALUES (@id, @parent, @updated, @rev, @data)
       ON CONFLICT(id) DO UPDATE SET parent_id = excluded.parent_id, time_updated = excluded.time_updated, rev = excluded.rev, data = excluded.data`,
    ),
    get: connection.db.prepare('SELECT data FROM session WHERE id = ?'),
    list: connection.db.prepare(
      `SELECT data FROM session
       WHERE (@roots = 0 OR parent_id IS NULL) AND (@directory IS NULL OR coalesce(json_extract(data, '$.project'), json_extract(data, '$.directory')) = @directory)
       ORDER BY time_updated DESC, id DESC LIMIT @limit`,
    ),
    children: connection.db.prepare('SELECT data FROM session WHERE parent_id = ? ORDER BY id'),
    // Everything kept of one session, by the column that names it; the session row goes last.
    deleteOf: [
      'DELETE FROM part WHERE session_id = ?',
      'DELETE FROM part_removed WHERE session_id = ?',
      'DELETE FROM message WHERE session_id = ?',
      'DELETE FROM message_removed WHERE session_id = ?',
      'DELETE FROM todo WHERE session_id = ?',
      'DELETE FROM file_read WHERE session_id = ?',
      'DELETE FROM permission_request WHERE session_id = ?',
      'DELETE FROM approved_rule WHERE root_id = ?',
      'DELETE FROM prompt WHERE session_id = ?',
      'DELETE FROM budget WHERE owner_id = ?',
      'DELETE FROM session WHERE id = ?',
    ].map((sql) => connection.db.prepare(sql)),
    removed: connection.db.prepare(
      `INSERT INTO session_removed (id, rev, data) VALUES (@id, @rev, @data)
       ON CONFLICT(id) DO UPDATE SET rev = excluded.rev, data = excluded.data`,
    ),
  };
  const write = (session: Session) =>
    statements.upsert.run({
      id: session.id,
      parent: session.parentID ?? null,
      updated: session.time.updated,
      rev: connection.revision(),
      data: JSON.stringify(session),
    });

  return {
    async upsert(session) {
      connection.write(() => write(session));
      connection.written(session.id);
    },
    async modify(id, change) {
      connection.write(() => write(change(readOne(statements.get, [id], Session))));
      connection.written(id);
    },
    get: async (id) => readOne(statements.get, [id], Session),
    list: async ({ roots, directory, limit }) =>
      readAll(statements.list, [{ roots: roots ? 1 : 0, directory: directory ?? null, limit: limit ?? -1 }], Session),
    children: async (parentId) => readAll(statements.children, [parentId], Session),
    async remove(id) {
      const removed = connection.write(() => {
        const session = readOne(statements.get, [id], Session);
        if (!session) return false;
        for (const statement of statements.deleteOf) statement.run(id);
        statements.removed.run({ id, rev: connection.revision(), data: JSON.stringify(session) });
        return true;
      });
      if (removed) connection.written(id);
    },
  };
}
