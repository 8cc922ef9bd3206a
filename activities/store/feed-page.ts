import type { FeedEntry, StoreFeed } from './store.js';

/** How many rows one `feed` call returns at most, unless told otherwise. */
export const DEFAULT_FEED_LIMIT = 500;

/**
 * One page of the feed from each table's oldest `limit` rows after the cursor: revisions are
 * unique across tables, so the page's rows are the store's oldest, and when the page is cut the
 * cursor stops at its last row (the rest comes with the next call).
 */
export function feedPage(cursor: number, tables: FeedEntry[][], limit: number): StoreFeed {
  const entries = tables.flat().sort((a, b) => a.rev - b.rev);
  if (entries.length <= limit) return { cursor, entries, more: false };
  const page = entries.slice(0, limit);
  return { cursor: page[page.length - 1].rev, entries: page, more: true };
}
