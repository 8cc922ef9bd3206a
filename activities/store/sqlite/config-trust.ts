import { ConfigChange, ConfigTrust, type ConfigTrustRows } from '../config-trust.js';
import type { SqliteConnection } from './connection.js';

interface Row {
  directory: string;
  trusted_id: string;
  trusted: string;
  time: number;
  pending: string | null;
}

export function sqliteConfigTrustRows({ db }: SqliteConnection): ConfigTrustRows {
  const statements = {
    get: db.prepare('SELECT * FROM config_trust WHERE directory = ?'),
    first: db.prepare(
      'INSERT INTO config_trust (directory, trusted_id, trusted, time) VALUES (?, ?, ?, ?) ON CONFLICT(directory) DO NOTHING',
    ),
    unlessPending: db.prepare(
      `INSERT INTO config_trust (directory, trusted_id, trusted, time) VALUES (?, ?, ?, ?)
       ON CONFLICT(directory) DO UPDATE SET trusted_id = excluded.trusted_id, trusted = excluded.trusted, time = excluded.time
       WHERE config_trust.pending IS NULL`,
    ),
    always: db.prepare(
      `INSERT INTO config_trust (directory, trusted_id, trusted, time) VALUES (?, ?, ?, ?)
       ON CONFLICT(directory) DO UPDATE SET trusted_id = excluded.trusted_id, trusted = excluded.trusted, time = excluded.time, pending = NULL`,
    ),
    setPending: db.prepare('UPDATE config_trust SET pending = ? WHERE directory = ? AND trusted_id = ?'),
  };
  return {
    async get(directory) {
      const row = statements.get.get(directory) as Row | undefined;
      if (!row) return undefined;
      return ConfigTrust.parse({
        directory: row.directory,
        trustedId: row.trusted_id,
        trusted: JSON.parse(row.trusted),
        time: row.time,
        ...(row.pending ? { pending: ConfigChange.parse(JSON.parse(row.pending)) } : {}),
      });
    },
    async trust(record, when) {
      const statement =
        when === 'first' ? statements.first : when === 'always' ? statements.always : statements.unlessPending;
      return statement.run(record.directory, record.trustedId, JSON.stringify(record.trusted), record.time).changes > 0;
    },
    async setPending(directory, trustedId, change) {
      return statements.setPending.run(JSON.stringify(change), directory, trustedId).changes > 0;
    },
  };
}
