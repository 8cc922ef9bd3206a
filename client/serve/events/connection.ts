import type { SSEStreamingApi } from 'hono/streaming';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChangeFeed } from '../../../activities/store/change-feed.js';
import type { ServerEvent } from './event-types.js';
import type { HostWatch } from './host-watch.js';
import type { FeedEvent, SharedFeed } from './shared-feed.js';
import { TurnEnds } from './turn-ends.js';

export const HEARTBEAT_MS = 10_000;
/** The longest a connection waits for word of a change before it reads anyway (a lost notification). */
const WAIT_MS = 5_000;
/** After a wake-up, the rest of a burst of writes (a streaming answer) is read in the same page. */
const GATHER_MS = 30;
/** Between attempts to read a store that is briefly out of reach. */
const RETRY_MS = 1_000;
/** A client that takes this long to accept one event is dropped; it comes back with `Last-Event-ID`. */
const WRITE_TIMEOUT_MS = 60_000;
/** How many parts' texts a connection remembers to send deltas. */
const DELTA_PARTS = 2_000;

export interface EventBus {
  store: ChangeFeed;
  feed: SharedFeed;
  hosts: HostWatch;
}

/**
 * One client's `GET /event`: `server.connected`, then every change after `since` (the client's
 * `Last-Event-ID`) or from now, a heartbeat every 10 s, until the client goes away. Only the last
 * event of a store revision carries the revision as its SSE id, so a client that reconnects with
 * it has had every event up to there.
 */
export async function streamEvents(stream: SSEStreamingApi, bus: EventBus, since: number | undefined): Promise<void> {
  const connection = new Connection(stream);
  const stop = new AbortController();
  stream.onAbort(() => stop.abort());
  const heartbeat = setInterval(() => void connection.send({ type: 'server.heartbeat', properties: {} }), HEARTBEAT_MS);
  const unsubscribe = bus.hosts.subscribe((sessions) => {
    for (const session of sessions) {
      void bus.feed.statusNow(session.id).then(
        (event) => event && connection.send(event),
        () => undefined,
      );
    }
  });
  try {
    let cursor = await untilRead(() => bus.feed.cursorNow(), stop.signal);
    // A cursor from the future (another database, or one rebuilt) would hide everything until the store caught up.
    if (since !== undefined && since <= cursor) cursor = since;
    await connection.send({ type: 'server.connected', properties: { cursor } }, cursor);
    while (!stop.signal.aborted && !connection.failed) {
      const page = await untilRead(() => bus.feed.read(cursor), stop.signal);
      await connection.sendPage(page.events);
      cursor = page.cursor;
      if (page.more) continue;
      await bus.store.waitForFeed(cursor, { timeoutMs: WAIT_MS, signal: stop.signal });
      await sleep(GATHER_MS, undefined, { signal: stop.signal }).catch(() => undefined);
    }
  } catch (error) {
    if (!stop.signal.aborted) throw error;
  } finally {
    clearInterval(heartbeat);
    unsubscribe();
  }
}

/** Retries `read` until it succeeds (the store comes back) or the client leaves. */
async function untilRead<T>(read: () => Promise<T>, signal: AbortSignal): Promise<T> {
  for (;;) {
    try {
      return await read();
    } catch {
      signal.throwIfAborted();
      await sleep(RETRY_MS, undefined, { signal });
    }
  }
}

/** What one client has been sent: its writes in order, and what deltas, `session.created` and turn ends need. */
class Connection {
  failed = false;
  private queue: Promise<void> = Promise.resolve();
  private readonly texts = new Map<string, string>();
  /** Prompts' messages: their text is not streamed, so it gets no delta (as with OpenCode). */
  private readonly prompts = new Set<string>();
  private readonly sessions = new Set<string>();
  private readonly connectedAt = Date.now();
  private readonly turns = new TurnEnds();

  constructor(private readonly stream: SSEStreamingApi) {}

  async sendPage(events: FeedEvent[]): Promise<void> {
    for (const [index, { rev, event }] of events.entries()) {
      const last = index === events.length - 1 || events[index + 1].rev !== rev;
      const shaped = [this.shape(event), ...this.turns.after(event)];
      for (const [at, each] of shaped.entries())
        await this.send(each, last && at === shaped.length - 1 ? rev : undefined);
    }
  }

  /** Writes one event after those before it; a write that fails or hangs ends the connection. */
  send(event: ServerEvent, id?: number): Promise<void> {
    this.queue = this.queue.then(async () => {
      if (this.failed) return;
      const timeout = setTimeout(() => this.fail(), WRITE_TIMEOUT_MS);
      try {
        await this.stream.writeSSE({ data: JSON.stringify(event), ...(id === undefined ? {} : { id: String(id) }) });
      } catch {
        this.fail();
      } finally {
        clearTimeout(timeout);
      }
    });
    return this.queue;
  }

  /** This connection's view of an event: `session.created` for sessions new to it, text deltas. */
  private shape(event: ServerEvent): ServerEvent {
    if (event.type === 'session.updated') {
      const { info } = event.properties;
      const isNew =
        !this.sessions.has(info.id) &&
        (info.time.created === info.time.updated || info.time.created >= this.connectedAt);
      this.sessions.add(info.id);
      return isNew ? { type: 'session.created', properties: event.properties } : event;
    }
    if (event.type === 'message.updated' && event.properties.info.role === 'user') {
      if (this.prompts.size >= DELTA_PARTS) this.prompts.clear();
      this.prompts.add(event.properties.info.id);
    }
    if (event.type === 'message.part.updated') {
      const { part } = event.properties;
      if ((part.type !== 'text' && part.type !== 'reasoning') || this.prompts.has(part.messageID)) return event;
      const before = this.texts.get(part.id);
      if (this.texts.size >= DELTA_PARTS) this.texts.clear();
      this.texts.set(part.id, part.text);
      // A part new to this connection: all its text is new to it (OpenCode's clients add up deltas).
      const from = before ?? '';
      return part.text.startsWith(from)
        ? { ...event, properties: { part, delta: part.text.slice(from.length) } }
        : event;
    }
    return event;
  }

  private fail(): void {
    this.failed = true;
    this.stream.abort();
  }
}
