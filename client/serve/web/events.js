// The live half of the page: GET /event (Server-Sent Events) applied to `state`. Every event
// carries the row's whole latest state, so applying one is a plain replace. On a reconnection the
// browser sends Last-Event-ID itself and the server replays what was missed.
import { eventsUrl } from './api.js';
import { changed, messageEntry, nextSeq, state, touch } from './state.js';

let resolveConnected;
let everConnected = false;
/** Resolves once the stream is up (or has failed once): API reads after it miss no event. */
export const connected = new Promise((resolve) => (resolveConnected = resolve));

export function connectEvents() {
  const source = new EventSource(eventsUrl());
  source.onmessage = (message) => {
    nextSeq();
    apply(JSON.parse(message.data));
    changed();
  };
  source.onerror = () => {
    resolveConnected();
    // The browser retries a dropped stream itself (sending Last-Event-ID); an HTTP error such as a
    // 401 or a 503 closes it for good, so try again, with the token the page may have been given since.
    if (source.readyState === EventSource.CLOSED) setTimeout(connectEvents, 3000);
    if (!state.connected) return;
    state.connected = false;
    changed();
  };
}

function apply({ type, properties: p }) {
  switch (type) {
    case 'server.connected':
      state.connected = true;
      // After a reconnection, pages read again what they show (the replay may have been cut short).
      if (everConnected) state.epoch++;
      everConnected = true;
      resolveConnected();
      return;
    case 'session.created':
    case 'session.updated':
      touch(`ses:${p.info.id}`);
      state.sessions.set(p.info.id, p.info);
      return;
    case 'session.deleted':
      touch(`ses:${p.sessionID}`);
      state.sessions.delete(p.sessionID);
      state.live.delete(p.sessionID);
      state.transcripts.delete(p.sessionID);
      return;
    case 'session.status':
      touch(`live:${p.sessionID}`);
      state.live.set(p.sessionID, p.status);
      return;
    case 'message.updated': {
      const transcript = state.transcripts.get(p.info.sessionID);
      if (!transcript) return;
      touch(`msg:${p.info.id}`);
      messageEntry(transcript, p.info.id).info = p.info;
      return;
    }
    case 'message.part.updated': {
      const transcript = state.transcripts.get(p.part.sessionID);
      if (!transcript) return;
      touch(`prt:${p.part.id}`);
      messageEntry(transcript, p.part.messageID).parts.set(p.part.id, p.part);
      return;
    }
    case 'message.removed':
      touch(`msg:${p.messageID}`);
      state.transcripts.get(p.sessionID)?.delete(p.messageID);
      return;
    case 'message.part.removed':
      touch(`prt:${p.partID}`);
      state.transcripts.get(p.sessionID)?.get(p.messageID)?.parts.delete(p.partID);
      return;
    case 'permission.asked':
    case 'permission.replied':
      touch(`per:${p.request.id}`);
      state.permissions.set(p.request.id, p.request);
      return;
    case 'batch.updated':
      touch(`bat:${p.batch.id}`);
      state.batches.set(p.batch.id, { batch: p.batch, counts: p.counts });
      return;
  }
}
