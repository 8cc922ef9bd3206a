// The home page: sessions, most recently updated first, live; and a box to start a new one.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { connected } from '../events.js';
import { ago, ErrorLine, formatTokens, href, html, Status, TemporalLink } from '../html.js';
import { loadSessions, statusOf, useStore } from '../state.js';

/** Tokens of each session's whole tree, read from GET /session/{id}/tree again whenever the session changes. */
const usage = new Map();

function useTreeTokens(sessions) {
  const [, setVersion] = useState(0);
  const key = sessions.map((session) => `${session.id}:${session.time.updated}:${session.status}`).join(',');
  useEffect(() => {
    for (const session of sessions) {
      const known = usage.get(session.id);
      if (known?.updated === session.time.updated && known.status === session.status) continue;
      usage.set(session.id, { ...known, updated: session.time.updated, status: session.status });
      api(`/session/${encodeURIComponent(session.id)}/tree`)
        .then((node) => {
          usage.set(session.id, { ...usage.get(session.id), tokens: node.tree.tokens });
          setVersion((version) => version + 1);
        })
        .catch(() => undefined);
    }
  }, [key]);
  return (id) => usage.get(id)?.tokens;
}

export function SessionsPage() {
  const store = useStore();
  const [all, setAll] = useState(false);
  const [error, setError] = useState();
  useEffect(() => {
    connected.then(() => loadSessions(all)).catch(setError);
  }, [all, store.epoch]);
  const sessions = [...store.sessions.values()]
    .filter((session) => all || !session.parentID)
    .sort((a, b) => b.time.updated - a.time.updated)
    .slice(0, 100);
  const tokensOf = useTreeTokens(sessions);
  return html`
    <${NewSession} />
    <section>
      <h1>Sessions</h1>
      <label class="toggle"
        ><input type="checkbox" checked=${all} onChange=${(event) => setAll(event.currentTarget.checked)} /> include
        subagent sessions</label
      >
      <${ErrorLine} error=${error} />
      ${sessions.length === 0 ? html`<p class="muted">No sessions yet.</p>` : null}
      <table class="sessions">
        <thead>
          <tr>
            <th>Title</th>
            <th>Agent</th>
            <th>Status</th>
            <th>Tokens</th>
            <th>Updated</th>
            <th></th>
          </tr>
        </thead>
        <tbody>
          ${sessions.map(
            (session) => html`
              <tr key=${session.id} data-session=${session.id}>
                <td>
                  <a href=${href('session', session.id)}>${session.title}</a>
                  <div class="id">${session.id}</div>
                </td>
                <td>
                  ${session.agent}
                  <div class="muted">${session.model}</div>
                </td>
                <td><${Status} status=${statusOf(session)} /></td>
                <td class="num">${formatTokens(tokensOf(session.id))}</td>
                <td class="muted">${ago(session.time.updated)}</td>
                <td><${TemporalLink} workflowId=${session.id} /></td>
              </tr>
            `,
          )}
        </tbody>
      </table>
    </section>
  `;
}

/** Starts a session (POST /session) and opens it. */
function NewSession() {
  const [agents, setAgents] = useState([]);
  const [agent, setAgent] = useState('');
  const [prompt, setPrompt] = useState('');
  const [error, setError] = useState();
  const [sending, setSending] = useState(false);
  useEffect(() => {
    api('/agent')
      .then((rows) => setAgents(rows.filter((row) => row.mode !== 'subagent')))
      .catch(() => undefined);
  }, []);
  const start = async (event) => {
    event.preventDefault();
    setSending(true);
    setError(undefined);
    try {
      const { id } = await api('/session', { method: 'POST', body: { prompt, ...(agent ? { agent } : {}) } });
      location.hash = href('session', id);
    } catch (failure) {
      setError(failure);
    } finally {
      setSending(false);
    }
  };
  return html`
    <form class="prompt new-session" onSubmit=${start}>
      <textarea
        placeholder="Ask Loom to do something in this project…"
        value=${prompt}
        onInput=${(event) => setPrompt(event.currentTarget.value)}
        rows="2"
      ></textarea>
      <div class="row">
        <select aria-label="Agent" value=${agent} onChange=${(event) => setAgent(event.currentTarget.value)}>
          <option value="">default agent</option>
          ${agents.map((row) => html`<option key=${row.name} value=${row.name}>${row.name}</option>`)}
        </select>
        <button type="submit" disabled=${sending || !prompt.trim()}>Start session</button>
      </div>
      <${ErrorLine} error=${error} />
    </form>
  `;
}
