import { WorkspaceConfigRecord } from '../../config/files.js';
import type { WorkspaceConfigRows } from '../workspace-configs.js';
import type { PostgresTransactions } from './transaction.js';

export function postgresWorkspaceConfigRows({ pool }: PostgresTransactions): WorkspaceConfigRows {
  return {
    async insert(id, record) {
      await pool.query('INSERT INTO workspace_snapshot (id, data) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [
        id,
        JSON.stringify(record),
      ]);
    },
    async get(id) {
      // The column is text, not jsonb: the driver gives it as it was written.
      const { rows } = await pool.query<{ data: string }>('SELECT data FROM workspace_snapshot WHERE id = $1', [id]);
      return rows[0] ? WorkspaceConfigRecord.parse(JSON.parse(rows[0].data)) : undefined;
    },
  };
}
