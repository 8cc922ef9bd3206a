import type { PermissionRule } from '../../core/permission.js';
import { PermissionRequestRecord } from '../../core/permission-request.js';
import { all, type Queryable } from './postgres-queries.js';

/** Permission requests and "always" approvals in the PostgreSQL store. Values are validated by the caller. */

/** Must run inside a transaction holding the shared revision lock. */
export async function upsertPermissionRequest(db: Queryable, request: PermissionRequestRecord): Promise<void> {
  await db.query(
    `INSERT INTO permission_request (id, session_id, root_id, status, rev, data) VALUES ($1, $2, $3, $4, nextval('revision'), $5::jsonb)
     ON CONFLICT (id) DO UPDATE SET status = excluded.status, rev = excluded.rev, data = excluded.data`,
    [request.id, request.sessionID, request.rootID, request.status, JSON.stringify(request)],
  );
}

export async function permissionRequests(
  db: Queryable,
  filter: { status?: PermissionRequestRecord['status']; rootID?: string },
): Promise<PermissionRequestRecord[]> {
  return all(
    db,
    `SELECT data FROM permission_request WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR root_id = $2) ORDER BY id`,
    [filter.status ?? null, filter.rootID ?? null],
    PermissionRequestRecord,
  );
}

export async function approvedRules(db: Queryable, rootID: string): Promise<PermissionRule[]> {
  const { rows } = await db.query<{ permission: string; pattern: string }>('SELECT permission, pattern FROM approved_rule WHERE root_id = $1 ORDER BY seq', [rootID]);
  return rows.map((row) => ({ ...row, action: 'allow' as const }));
}

/** Must run inside a transaction: the advisory lock gives each grant of one tree the next number. */
export async function addApprovedRules(db: Queryable, rootID: string, rules: PermissionRule[]): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`loom.approved_rule:${rootID}`]);
  for (const rule of rules) {
    await db.query(
      `INSERT INTO approved_rule (root_id, seq, permission, pattern)
       VALUES ($1, (SELECT COALESCE(MAX(seq), 0) + 1 FROM approved_rule WHERE root_id = $1), $2, $3)
       ON CONFLICT DO NOTHING`,
      [rootID, rule.permission, rule.pattern],
    );
  }
}
