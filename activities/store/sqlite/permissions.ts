import { PermissionRequestRecord } from '../../../core/rules/permission-request.js';
import type { Grant, PermissionRows } from '../permissions.js';
import type { SqliteConnection } from './connection.js';
import { readAll, readOne } from './documents.js';

export function sqlitePermissionRows(connection: SqliteConnection): PermissionRows {
  const { db } = connection;
  const statements = {
    upsert: db.prepare(
      `INSERT INTO permission_request (id, session_id, root_id, status, rev, data) VALUES (@id, @session, @root, @status, @rev, @data)
       ON CONFLICT(id) DO UPDATE SET status = excluded.status, rev = excluded.rev, data = excluded.data`,
    ),
    get: db.prepare('SELECT data FROM permission_request WHERE id = ?'),
    list: db.prepare(
      `SELECT data FROM permission_request
       WHERE (@status IS NULL OR status = @status) AND (@root IS NULL OR root_id = @root) ORDER BY id`,
    ),
    grants: db.prepare('SELECT permission, pattern FROM approved_rule WHERE root_id = ? ORDER BY seq'),
    grant: db.prepare(
      `INSERT INTO approved_rule (root_id, seq, permission, pattern)
       VALUES (@root, (SELECT IFNULL(MAX(seq), 0) + 1 FROM approved_rule WHERE root_id = @root), @permission, @pattern)
       ON CONFLICT DO NOTHING`,
    ),
  };

  return {
    async upsert(request) {
      const { id, sessionID: session, rootID: root, status } = request;
      connection.write(() =>
        statements.upsert.run({ id, session, root, status, rev: connection.revision(), data: JSON.stringify(request) }),
      );
      connection.written(request.sessionID);
    },
    get: async (id) => readOne(statements.get, [id], PermissionRequestRecord),
    list: async (filter) =>
      readAll(
        statements.list,
        [{ status: filter.status ?? null, root: filter.rootID ?? null }],
        PermissionRequestRecord,
      ),
    grants: async (rootId) => statements.grants.all(rootId) as Grant[],
    async grant(rootId, grants) {
      connection.write(() => {
        for (const { permission, pattern } of grants) statements.grant.run({ root: rootId, permission, pattern });
      });
    },
  };
}
