import { ConfigChange, ConfigTrust, type ConfigTrustRows } from '../config-trust.js';
import type { PostgresTransactions } from './transaction.js';

interface Row {
  directory: string;
  trusted_id: string;
  trusted: string;
  time: string;
  pending: string | null;
}

const INSERT = 'INSERT INTO config_trust (directory, trusted_id, trusted, time) VALUES ($1, $2, $3, $4)';
const REPLACE = 'DO UPDATE SET trusted_id = excluded.trusted_id, trusted = excluded.trusted, time = excluded.time';

export function postgresConfigTrustRows({ pool }: PostgresTransactions): ConfigTrustRows {
  const statements = {
    first: `${INSERT} ON CONFLICT (directory) DO NOTHING`,
    'unless-pending': `${INSERT} ON CONFLICT (directory) ${REPLACE} WHERE config_trust.pending IS NULL`,
    always: `${INSERT} ON CONFLICT (directory) ${REPLACE}, pending = NULL`,
  };
  return {
    async get(directory) {
      const { rows } = await pool.query<Row>('SELECT * FROM config_trust WHERE directory = $1', [directory]);
      const row = rows[0];
      if (!row) return undefined;
      return ConfigTrust.parse({
        directory: row.directory,
        trustedId: row.trusted_id,
        trusted: JSON.parse(row.trusted),
        time: Number(row.time),
        ...(row.pending ? { pending: ConfigChange.parse(JSON.parse(row.pending)) } : {}),
      });
    },
    async trust(record, when) {
      const result = await pool.query(statements[when], [
        record.directory,
        record.trustedId,
        JSON.stringify(record.trusted),
        record.time,
      ]);
      return (result.rowCount ?? 0) > 0;
    },
    async setPending(directory, trustedId, change) {
      const result = await pool.query('UPDATE config_trust SET pending = $1 WHERE directory = $2 AND trusted_id = $3', [
        JSON.stringify(change),
        directory,
        trustedId,
      ]);
      return (result.rowCount ?? 0) > 0;
    },
  };
}
