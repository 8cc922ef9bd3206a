import type Database from 'better-sqlite3';
import { BatchRecord } from '../../core/batch.js';
import { Message } from '../../core/message.js';
import { Part } from '../../core/part.js';
import { PermissionRequestRecord } from '../../core/permission-request.js';
import { Session } from '../../core/session.js';
import { feedPage } from './feed-page.js';
import type { FeedEntry, StoreFeed } from './store.js';

type Row = { rev: number; data: string };

/** The SQLite store's `feed`: each table's rows after the cursor, read in one transaction. */
export class SqliteFeedReader {
  private readonly statements;

  constructor(private readonly db: Database.Database) {
    const after = (table: string) => db.prepare(`SELECT rev, data FROM ${table} WHERE rev > ? AND rev <= ? ORDER BY rev LIMIT ?`);
    this.statements = {
      cursor: db.prepare('SELECT value FROM revision WHERE id = 1').pluck(),
      session: after('session'),
      message: after('message'),
      part: after('part'),
      permission: after('permission_request'),
      batch: after('batch'),
      removed: db.prepare('SELECT rev, id, message_id, session_id FROM part_removed WHERE rev > ? AND rev <= ? ORDER BY rev LIMIT ?'),
    };
  }

  read(since: number, limit: number): StoreFeed {
    return this.db.transaction(() => {
      const cursor = this.statements.cursor.get() as number;
      // One row more than a page from each table: a table with more rows than fit must cut the page.
      const rows = (name: 'session' | 'message' | 'part' | 'permission' | 'batch') =>
        (this.statements[name].all(since, cursor, limit + 1) as Row[]).map((row) => ({ rev: row.rev, data: JSON.parse(row.data) as unknown }));
      const removed = this.statements.removed.all(since, cursor, limit + 1) as { rev: number; id: string; message_id: string; session_id: string }[];
      const tables: FeedEntry[][] = [
        rows('session').map(({ rev, data }) => ({ rev, kind: 'session', session: Session.parse(data) })),
        rows('message').map(({ rev, data }) => ({ rev, kind: 'message', message: Message.parse(data) })),
        rows('part').map(({ rev, data }) => ({ rev, kind: 'part', part: Part.parse(data) })),
        rows('permission').map(({ rev, data }) => ({ rev, kind: 'permission', request: PermissionRequestRecord.parse(data) })),
        rows('batch').map(({ rev, data }) => ({ rev, kind: 'batch', batch: BatchRecord.parse(data) })),
        removed.map((row) => ({ rev: row.rev, kind: 'part-removed', partID: row.id, messageID: row.message_id, sessionID: row.session_id })),
      ];
      return feedPage(cursor, tables, limit);
    })();
  }
}
