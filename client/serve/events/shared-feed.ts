import { busEventOf } from '../../../core/records/bus-events.js';
import type { PermissionRequestRecord } from '../../../core/rules/permission-request.js';
import type { Session } from '../../../core/records/session.js';
import type { BatchRecords } from '../../../activities/store/batches.js';
import type { ChangeFeed } from '../../../activities/store/change-feed.js';
import type { PermissionRecords } from '../../../activities/store/permissions.js';
import type { SessionRecords } from '../../../activities/store/sessions.js';
import type { FeedEntry, StoreFeed } from '../../../activities/store/feed-page.js';
import type { ServerEvent } from './event-types.js';
import type { HostWatch } from './host-watch.js';
import { liveStatus } from './live-status.js';
import { servedEvents } from './opencode-events.js';
import { describedPart } from '../tool-description.js';

/** An event and the store revision it comes from (none for events that are not stored). */
export interface FeedEvent {
  rev?: number;
  event: ServerEvent;
}

/** The events of one page of the store's feed, and where the next page starts. */
export interface EventPage {
  cursor: number;
  more: boolean;
  events: FeedEvent[];
}

/** Rows per page: a client far behind catches up in steps of this many. */
const PAGE_ROWS = 500;
/** How long a page read stays shared with clients that ask for the same cursor a moment later. */
const SHARE_MS = 1_000;

/**
 * The store's feed turned into events, read once for every client at the same cursor: clients
 * that keep up share each read, a client that is behind (slow, or back with `Last-Event-ID`) reads
 * its own pages and holds nobody else up.
 */
export class SharedFeed {
  private readonly reads = new Map<number, Promise<EventPage>>();

  constructor(
    private readonly store: BatchRecords & ChangeFeed & PermissionRecords & SessionRecords,
    private readonly hosts: HostWatch,
  ) {}

  /** The store's current cursor: a new client starts from here. */
  async cursorNow(): Promise<number> {
    return (await this.store.feed(Number.MAX_SAFE_INTEGER)).cursor;
  }

  read(since: number): Promise<EventPage> {
    let read = this.reads.get(since);
    if (!read) {
      read = this.readPage(since);
      this.reads.set(since, read);
      const forget = () => setTimeout(() => this.reads.delete(since), SHARE_MS).unref();
      // A failed read is forgotten at once, so the next attempt asks the store again.
      read.then(forget, () => this.reads.delete(since));
    }
    return read;
  }

  private async readPage(since: number): Promise<EventPage> {
    // Read before the page: a request asked after the page was read must not colour a status in it.
    const waitingNow = await this.store.permissionRequests({ status: 'pending' });
    const page: StoreFeed = await this.store.feed(since, PAGE_ROWS);
    const pending = pendingBefore(page.entries, waitingNow);
    const events: FeedEvent[] = [];
    for (const entry of page.entries) {
      const rev = entry.rev;
      const push = (event: ServerEvent) => events.push({ rev, event });
      // A batch row comes once per page (at its latest revision): one count per batch and page.
      const stored = busEventOf(
        entry.kind === 'part' ? { ...entry, part: describedPart(entry.part) } : entry,
        entry.kind === 'batch' ? await this.store.batchCounts(entry.batch.id) : undefined,
      );
      servedEvents(stored).forEach(push);
      switch (entry.kind) {
        case 'session':
          this.hosts.saw(entry.session);
          push(this.status(entry.session, [...pending.values()]));
          break;
        case 'permission': {
          const { request } = entry;
          if (request.status === 'pending') pending.set(request.id, request);
          else pending.delete(request.id);
          // The asking session's status changes, and so does its root's (which shows its tree's approvals).
          for (const id of new Set([request.sessionID, request.rootID])) {
            const session = await this.store.getSession(id);
            if (session) push(this.status(session, [...pending.values()]));
          }
          break;
        }
      }
    }
    return { cursor: page.cursor, more: page.more, events };
  }

  /** A session's `session.status` now (after the host watch saw its host come or go), read afresh. */
  async statusNow(sessionId: string): Promise<ServerEvent | undefined> {
    const session = await this.store.getSession(sessionId);
    return session && this.status(session, await this.store.permissionRequests({ status: 'pending' }));
  }

  private status(session: Session, pending: PermissionRequestRecord[]): ServerEvent {
    return {
      type: 'session.status',
      properties: { sessionID: session.id, status: liveStatus(session, pending, this.hosts.isUnserved(session.host)) },
    };
  }
}

/**
 * The requests waiting when the page starts, as far as the store can tell: those waiting when the
 * page was read, less those the page itself asks or answers (their entries update the set as the
 * page is walked, so each status says what was true at its point in the stream).
 */
function pendingBefore(entries: FeedEntry[], waiting: PermissionRequestRecord[]): Map<string, PermissionRequestRecord> {
  const inPage = new Set(entries.flatMap((entry) => (entry.kind === 'permission' ? [entry.request.id] : [])));
  return new Map(waiting.filter((request) => !inPage.has(request.id)).map((request) => [request.id, request]));
}
