// What the page knows, filled by API reads and kept current by the event stream (events.js).
// Components read it through `useStore()` and re-render when anything changes.
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.js';

export const state = {
  /** Whether the event stream is connected; `epoch` counts reconnections, so pages can read again. */
  connected: false,
  epoch: 0,
  config: { temporalUi: null, namespace: 'default' },
  /** Session by id. */
  sessions: new Map(),
  /** LiveStatus by session id, from `session.status` events: `detail` is finer than a session's stored status. */
  live: new Map(),
  /** What a session's work waits for (`waiting` of GET /session/{id}: a worker, or its host's), by session id. */
  waits: new Map(),
  /** GET /project: the project folders of the stored sessions, the server's own first. */
  projects: [],
  /** For each session whose transcript is shown: message id → {info, parts: Map(part id → part)}. */
  transcripts: new Map(),
  /** Permission requests by id, pending and answered. */
  permissions: new Map(),
  /** Batches by id: {batch, counts}. */
  batches: new Map(),
};

// An API read may finish after an event that is newer than it; the event wins. `seq` counts the
// events applied, `touched` remembers when each row last came from one.
let seq = 0;
const touched = new Map();
export const nextSeq = () => ++seq;
export const touch = (key) => touched.set(key, seq);
const freshSince = (key, start) => (touched.get(key) ?? -1) > start;

const listeners = new Set();
let scheduled = false;
/** Re-render the subscribed components, once for any number of changes in one tick. */
export function changed() {
  if (scheduled) return;
  scheduled = true;
  queueMicrotask(() => {
    scheduled = false;
    for (const listener of listeners) listener();
  });
}

export function useStore() {
  const [, setVersion] = useState(0);
  useEffect(() => {
    const listener = () => setVersion((version) => version + 1);
    listeners.add(listener);
    return () => listeners.delete(listener);
  }, []);
  return state;
}

/** Runs `read`, then `apply`s its result unless events replaced the same rows meanwhile. */
async function read(path, apply) {
  const start = seq;
  const data = await api(path);
  apply(data, (key) => !freshSince(key, start));
  changed();
  return data;
}

export const loadConfig = () => read('/config/web', (config) => (state.config = config)).catch(() => undefined);

/** The latest sessions of one project folder, or of every project when `directory` is undefined. */
export const loadSessions = (all = false, directory = undefined) =>
  read(
    `/session?limit=100${all ? '&all=true' : ''}${directory === undefined ? '' : `&directory=${encodeURIComponent(directory)}`}`,
    (sessions, mayWrite) => {
      for (const session of sessions) if (mayWrite(`ses:${session.id}`)) state.sessions.set(session.id, session);
    },
  );

/**
 * What each busy session is doing now (GET /session/status), for a page opened mid-run: the
 * `session.status` events only tell of changes after it connected.
 */
export const loadStatuses = () =>
  read('/session/status', (statuses, mayWrite) => {
    for (const [id, status] of Object.entries(statuses)) if (mayWrite(`live:${id}`)) state.live.set(id, status);
  });

export const loadProjects = () => read('/project', (projects) => (state.projects = projects));

export const loadSession = (id) =>
  read(`/session/${encodeURIComponent(id)}`, ({ waiting, ...session }, mayWrite) => {
    if (mayWrite(`ses:${id}`)) state.sessions.set(id, session);
    if (waiting) state.waits.set(id, waiting);
    else state.waits.delete(id);
  });

/** A session tree: its sessions join `state.sessions`; the node shape (tokens per subtree) is returned. */
export const loadTree = (rootId) =>
  read(`/session/${encodeURIComponent(rootId)}/tree`, (node, mayWrite) => {
    const visit = (n) => {
      if (mayWrite(`ses:${n.session.id}`)) state.sessions.set(n.session.id, n.session);
      n.children.forEach(visit);
    };
    visit(node);
  });

/** Starts following a session's transcript: events for it are kept from now on. */
export function watchTranscript(sessionId) {
  if (!state.transcripts.has(sessionId)) state.transcripts.set(sessionId, new Map());
  return read(`/session/${encodeURIComponent(sessionId)}/message`, (messages, mayWrite) => {
    const transcript = state.transcripts.get(sessionId);
    for (const { info, parts } of messages) {
      const entry = messageEntry(transcript, info.id);
      if (mayWrite(`msg:${info.id}`)) entry.info = info;
      for (const part of parts) if (mayWrite(`prt:${part.id}`)) entry.parts.set(part.id, part);
    }
  });
}

export function messageEntry(transcript, messageId) {
  let entry = transcript.get(messageId);
  if (!entry) transcript.set(messageId, (entry = { info: undefined, parts: new Map() }));
  return entry;
}

export const loadPermissions = (sessionId) =>
  read(`/permission${sessionId ? `?session=${encodeURIComponent(sessionId)}` : ''}`, (requests, mayWrite) => {
    for (const request of requests) if (mayWrite(`per:${request.id}`)) state.permissions.set(request.id, request);
  });

/** GET /batch rows are a batch with its `counts`; kept as {batch, counts}, the shape of `batch.updated`. */
function putBatch({ counts, tokens: _tokens, ...batch }) {
  state.batches.set(batch.id, { batch, counts });
}

export const loadBatches = () =>
  read('/batch', (rows, mayWrite) => {
    for (const row of rows) if (mayWrite(`bat:${row.id}`)) putBatch(row);
  });

export const loadBatch = (id) =>
  read(`/batch/${encodeURIComponent(id)}`, (row, mayWrite) => {
    if (mayWrite(`bat:${id}`)) putBatch(row);
  });

const BUSY = new Set(['busy', 'waiting-approval', 'waiting-host']);

/**
 * A session's status as shown. The stored one says whether a run is going; the live one, from
 * events, says more (waiting for an approval, for a host) and is used while the two agree.
 */
export function statusOf(session) {
  const live = state.live.get(session.id)?.detail;
  if (!live) return session.status;
  return BUSY.has(live) === (session.status === 'busy') ? live : session.status;
}

export const isBusy = (status) => BUSY.has(status);

/** Whether a person is needed to go on: the session (or, for a root, its tree) waits for an approval. */
export const needsPerson = (session) => statusOf(session) === 'waiting-approval';
