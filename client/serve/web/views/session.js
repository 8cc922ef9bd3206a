// A session: its live transcript (undo, redo and fork on its turns, each step's diff), its subagent
// tree, the approvals its tree waits for, a prompt box (an idle session starts a new run, a busy
// one queues the prompt) and Cancel.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { connected } from '../events.js';
import { ErrorLine, formatBudget, formatTokens, href, html, Status, TemporalLink } from '../html.js';
import {
  changed,
  isBusy,
  loadPermissions,
  loadSession,
  loadTree,
  state,
  statusOf,
  useStore,
  watchTranscript,
} from '../state.js';
import { Approvals } from './approvals.js';
import { ConfigBanner } from './config-banner.js';
import { Transcript } from './parts.js';

/** The root of a session's tree as far as the page knows it, or the first session it still needs to read. */
function treeRoot(id) {
  let session = state.sessions.get(id);
  while (session?.parentID) {
    const parent = state.sessions.get(session.parentID);
    if (!parent) return { missing: session.parentID };
    session = parent;
  }
  return session ? { root: session.id } : { missing: id };
}

export function SessionPage({ id }) {
  const store = useStore();
  const [error, setError] = useState();
  useEffect(() => {
    // A session started a moment ago may not be stored yet (404): its events bring it when it is.
    connected
      .then(() => Promise.allSettled([loadSession(id), watchTranscript(id), loadPermissions(id)]))
      .then((results) => setError(results.find((result) => result.status === 'rejected')?.reason));
    return () => {
      state.transcripts.delete(id);
      changed();
    };
  }, [id, store.epoch]);
  const { root: rootId, missing } = treeRoot(id);
  useEffect(() => {
    if (missing && missing !== id) loadSession(missing).catch(setError);
  }, [missing]);
  const session = store.sessions.get(id);
  if (!session)
    return error?.status === 404
      ? html`<${ErrorLine} error=${error} />`
      : html`<p class="muted">Loading ${id}…</p>
          <${ErrorLine} error=${error} />`;
  const parent = session.parentID ? store.sessions.get(session.parentID) : undefined;
  const status = statusOf(session);
  // A subagent's prompts come from its parent agent; the person continues the parent, not it.
  const from = session.parentID ? `${parent?.agent ?? 'Parent'} (parent agent)` : undefined;
  return html`
    <div class="session-page" data-session=${id}>
      <header class="session-head">
        ${session.parentID ? html`<a class="parent" href=${href('session', session.parentID)}>↑ ${parent?.title ?? session.parentID}</a>` : null}
        <h1>${session.title}</h1>
        <p class="meta">
          <${Status} status=${status} />
          <span class="muted">${session.agent} · ${session.model} · ${session.directory}</span>
          <span class="id">${session.id}</span> <${TemporalLink} workflowId=${session.id} />
          ${isBusy(status) ? html`<${CancelButton} id=${id} />` : null}
        </p>
      </header>
      <${WaitBanner} id=${id} />
      <${ConfigBanner} directory=${session.directory} refresh=${`${status}:${session.time.updated}`} />
      ${
        session.error
          ? html`<p class="error" role="alert" data-session-error>${session.error.name}: ${session.error.message}</p>`
          : null
      }
      <${ErrorLine} error=${error?.status === 404 ? undefined : error} />
      <div class="columns">
        <div class="main-column">
          <${Transcript}
            transcript=${store.transcripts.get(id) ?? new Map()}
            session=${session}
            busy=${isBusy(status)}
            from=${from}
          />
          ${
            from
              ? html`<p class="muted" data-subagent-note>
                  A subagent works on what its parent agent asks: to go on, write to${' '}<a
                    href=${href('session', session.parentID)}
                    >${parent?.title ?? session.parentID}</a
                  >.
                </p>`
              : html`<${PromptBox} id=${id} busy=${isBusy(status)} />`
          }
        </div>
        <aside>
          ${rootId ? html`<${Approvals} rootId=${rootId} currentId=${id} />` : null}
          ${rootId ? html`<${Tree} rootId=${rootId} currentId=${id} />` : null}
        </aside>
      </div>
    </div>
  `;
}

/**
 * The session tree, built from the sessions the page knows (so a new subagent shows at once), with
 * tokens per subtree from GET /session/{root}/tree, read again whenever a session of it changes.
 */
function Tree({ rootId, currentId }) {
  const store = useStore();
  const [usage, setUsage] = useState(new Map());
  const sessions = [...store.sessions.values()];
  const childrenOf = (id) =>
    sessions.filter((session) => session.parentID === id).sort((a, b) => a.time.created - b.time.created);
  const collect = (id) => [id, ...childrenOf(id).flatMap((child) => collect(child.id))];
  const members = collect(rootId);
  const key = members.map((member) => `${member}:${store.sessions.get(member)?.time.updated}`).join(',');
  useEffect(() => {
    loadTree(rootId)
      .then((node) => {
        const byId = new Map();
        const visit = (n) => {
          byId.set(n.session.id, { ...n.tree, budget: n.budget });
          n.children.forEach(visit);
        };
        visit(node);
        setUsage(byId);
      })
      .catch(() => undefined);
  }, [key]);
  const node = (id) => {
    const session = store.sessions.get(id);
    if (!session) return null;
    const children = childrenOf(id);
    return html`
      <li key=${id} data-tree-node=${id}>
        <a href=${href('session', id)} class=${id === currentId ? 'current' : ''}>${session.title}</a>
        <span class="muted"> ${session.agent}</span> <${Status} status=${statusOf(session)} />
        <span class="muted num"> ${formatTokens(usage.get(id)?.tokens)}</span>
        ${
          usage.get(id)?.budget
            ? html`<span class="muted num" data-budget=${id}>
                · ${formatBudget(usage.get(id), usage.get(id).budget)}</span
              >`
            : null
        }
        ${
          children.length
            ? html`<ul>
                ${children.map((child) => node(child.id))}
              </ul>`
            : null
        }
      </li>
    `;
  };
  return html`<section class="tree" aria-label="Session tree">
    <h2>Session tree</h2>
    <ul>
      ${node(rootId)}
    </ul>
  </section>`;
}

/** How often a session whose work waits for a worker is read again, to see the wait end. */
const WAIT_CHECK_MS = 2000;

/** What the session's work waits for (no worker on the task queue, or on its host), until it does not. */
function WaitBanner({ id }) {
  const store = useStore();
  const waiting = store.waits.get(id);
  useEffect(() => {
    if (!waiting) return undefined;
    const check = () =>
      loadSession(id).catch((error) => {
        // Its run ended before any worker stored it (cancelled): nothing waits any more.
        if (error.status !== 404) return;
        state.waits.delete(id);
        changed();
      });
    const timer = setInterval(() => void check(), WAIT_CHECK_MS);
    return () => clearInterval(timer);
  }, [id, waiting?.type]);
  if (!waiting) return null;
  return html`<p class="wait-banner" role="status" data-waiting=${waiting.type}>${waiting.message}</p>`;
}

function CancelButton({ id }) {
  const [error, setError] = useState();
  const [sending, setSending] = useState(false);
  const cancel = async () => {
    setSending(true);
    try {
      await api(`/session/${encodeURIComponent(id)}/abort`, { method: 'POST' });
    } catch (failure) {
      setError(failure);
    } finally {
      setSending(false);
    }
  };
  return html`<button class="danger" disabled=${sending} onClick=${() => void cancel()}>Cancel</button
    ><${ErrorLine} error=${error} />`;
}

function PromptBox({ id, busy }) {
  const [prompt, setPrompt] = useState('');
  const [error, setError] = useState();
  const [sending, setSending] = useState(false);
  const send = async (event) => {
    event.preventDefault();
    setSending(true);
    setError(undefined);
    try {
      await api(`/session/${encodeURIComponent(id)}/message`, { method: 'POST', body: { prompt } });
      setPrompt('');
    } catch (failure) {
      setError(failure);
    } finally {
      setSending(false);
    }
  };
  return html`
    <form class="prompt" onSubmit=${send}>
      <textarea
        aria-label="Prompt"
        placeholder=${busy ? 'Queue a prompt: the running loop takes it at its next step' : 'Continue this session…'}
        value=${prompt}
        onInput=${(event) => setPrompt(event.currentTarget.value)}
        rows="3"
      ></textarea>
      <div class="row">
        <button type="submit" disabled=${sending || !prompt.trim()}>${busy ? 'Queue' : 'Send'}</button>
      </div>
      <${ErrorLine} error=${error} />
    </form>
  `;
}
