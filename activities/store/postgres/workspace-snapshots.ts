import { WorkspaceSnapshot } from '../../config/files.js';
import type { WorkspaceSnapshotRows } from '../workspace-snapshots.js';
import type { PostgresTransactions } from './transaction.js';

export function postgresWorkspaceSnapshotRows({ pool }: PostgresTransactions): WorkspaceSnapshotRows {
  return {
    async insert(id, snapshot) {
      await pool.query('INSERT INTO workspace_snapshot (id, data) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [
        id,
        JSON.stringify(snapshot),
      ]);
    },
    async get(id) {
      // The column is text, not jsonb: the driver gives it as it was written.
      const { rows } = await pool.query<{ data: string }>('SELECT data FROM workspace_snapshot WHERE id = $1', [id]);
      return rows[0] ? WorkspaceSnapshot.parse(JSON.parse(rows[0].data)) : undefined;
    },
  };
}
