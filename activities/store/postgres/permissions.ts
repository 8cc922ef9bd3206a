import { PermissionRequestRecord } from '../../../core/rules/permission-request.js';
import type { Grant, PermissionRows } from '../permissions.js';
import { all, one } from './documents.js';
import type { PostgresTransactions } from './transaction.js';

export function postgresPermissionRows(db: PostgresTransactions): PermissionRows {
  return {
    async upsert(request) {
      await db.write(
        request.sessionID,
        `INSERT INTO permission_request (id, session_id, root_id, status, rev, data)
         SELECT $2, $1, $3, $4, nextval('revision'), $5::jsonb FROM locked
         ON CONFLICT (id) DO UPDATE SET status = excluded.status, rev = excluded.rev, data = excluded.data
         RETURNING rev`,
        [request.id, request.rootID, request.status, JSON.stringify(request)],
      );
    },
    get: (id) => one(db.pool, 'SELECT data FROM permission_request WHERE id = $1', [id], PermissionRequestRecord),
    list: (filter) =>
      all(
        db.pool,
        `SELECT data FROM permission_request WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR root_id = $2) ORDER BY id`,
        [filter.status ?? null, filter.rootID ?? null],
        PermissionRequestRecord,
      ),
    async grants(rootId) {
      const { rows } = await db.pool.query<Grant>(
        'SELECT permission, pattern FROM approved_rule WHERE root_id = $1 ORDER BY seq',
        [rootId],
      );
      return rows;
    },
    async grant(rootId, grants) {
      await db.transaction(async (client) => {
        // The advisory lock gives each grant of one tree the next number.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`loom.approved_rule:${rootId}`]);
        for (const { permission, pattern } of grants) {
          await client.query(
            `INSERT INTO approved_rule (root_id, seq, permission, pattern)
             VALUES ($1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM approved_rule WHERE root_id = $1), $2, $3)
             ON CONFLICT DO NOTHING`,
            [rootId, permission, pattern],
          );
        }
      });
    },
  };
}
