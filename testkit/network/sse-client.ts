import type { ServerEvent } from '../../client/serve/events/event-types.js';
import { waitFor } from '../wait.js';

/** One event as a client received it, with the SSE id it carried (if any). */
export interface ReceivedEvent {
  id?: string;
  event: ServerEvent;
}

/** A client of `GET /event` reading with fetch, as any program would: what it received so far. */
export interface EventClient {
  events: ReceivedEvent[];
  /** The last SSE id received: what a reconnecting client sends as `Last-Event-ID`. */
  lastId(): string | undefined;
  /** Waits until an event matches, and returns it. */
  next(match: (event: ServerEvent) => boolean, timeoutMs?: number): Promise<ServerEvent>;
  close(): void;
  /** Settles when the server ends the stream or the client closes it. */
  ended: Promise<void>;
}

export async function connectEvents(url: string, headers: Record<string, string> = {}): Promise<EventClient> {
  const abort = new AbortController();
  const response = await fetch(url, { headers, signal: abort.signal });
  if (response.status !== 200 || !response.body)
    throw new Error(`GET ${url} answered ${response.status}: ${await response.text()}`);
  const events: ReceivedEvent[] = [];
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const ended = (async () => {
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = block
          .split('\n')
          .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)] as const);
        const data = fields
          .filter(([name]) => name === 'data')
          .map(([, value]) => value)
          .join('\n');
        const id = fields.find(([name]) => name === 'id')?.[1];
        if (data) events.push({ ...(id === undefined ? {} : { id }), event: JSON.parse(data) as ServerEvent });
      }
    }
  })();
  return {
    events,
    lastId: () => events.findLast((received) => received.id !== undefined)?.id,
    async next(match, timeoutMs = 30_000) {
      let found: ServerEvent | undefined;
      await waitFor(() => (found = events.find((received) => match(received.event))?.event) !== undefined, timeoutMs);
      return found as ServerEvent;
    },
    close: () => abort.abort(),
    ended,
  };
}
