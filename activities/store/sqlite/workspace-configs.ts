import { WorkspaceConfigRecord } from '../../config/files.js';
import type { WorkspaceConfigRows } from '../workspace-configs.js';
import type { SqliteConnection } from './connection.js';
import { readOne } from './documents.js';

export function sqliteWorkspaceConfigRows({ db }: SqliteConnection): WorkspaceConfigRows {
  const statements = {
    insert: db.prepare('INSERT INTO workspace_snapshot (id, data) VALUES (?, ?) ON CONFLICT(id) DO NOTHING'),
    get: db.prepare('SELECT data FROM workspace_snapshot WHERE id = ?'),
  };
  return {
    async insert(id, record) {
      statements.insert.run(id, JSON.stringify(record));
    },
    get: async (id) => readOne(statements.get, [id], WorkspaceConfigRecord),
  };
}
