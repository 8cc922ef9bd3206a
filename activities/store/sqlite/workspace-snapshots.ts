import { WorkspaceSnapshot } from '../../config/files.js';
import type { WorkspaceSnapshotRows } from '../workspace-snapshots.js';
import type { SqliteConnection } from './connection.js';
import { readOne } from './documents.js';

export function sqliteWorkspaceSnapshotRows({ db }: SqliteConnection): WorkspaceSnapshotRows {
  const statements = {
    insert: db.prepare('INSERT INTO workspace_snapshot (id, data) VALUES (?, ?) ON CONFLICT(id) DO NOTHING'),
    get: db.prepare('SELECT data FROM workspace_snapshot WHERE id = ?'),
  };
  return {
    async insert(id, snapshot) {
      statements.insert.run(id, JSON.stringify(snapshot));
    },
    get: async (id) => readOne(statements.get, [id], WorkspaceSnapshot),
  };
}
