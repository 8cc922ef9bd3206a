// The home page: one project's sessions (or every project's), most recently updated first, live;
// and a box to start a new one in that project.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { connected } from '../events.js';
import { ago, ErrorLine, formatTokens, href, html, Status, TemporalLink } from '../html.js';
import { loadProjects, loadSessions, needsPerson, statusOf, useStore } from '../state.js';

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

const PROJECT_KEY = 'loom.project';
/** The project a session is listed under: its folder, or the project an isolated batch task's copy stands for. */
const projectOf = (session) => session.project ?? session.directory;

/** The selector's value for every project. */
const ALL_PROJECTS = '*';

/**
 * The project folders to choose from: those GET /project listed, and any a session the page has
 * seen since works in (a session started elsewhere in a new folder).
 */
function projectsOf(store) {
  const known = new Map(store.projects.map((project) => [project.directory, project]));
  for (const session of store.sessions.values())
    if (!session.parentID && !known.has(projectOf(session)))
      known.set(projectOf(session), { directory: projectOf(session), current: false });
  return [...known.values()];
}

export function SessionsPage() {
  const store = useStore();
  const [all, setAll] = useState(false);
  const [chosen, setChosen] = useState(() => sessionStorage.getItem(PROJECT_KEY) ?? undefined);
  const [error, setError] = useState();
  const projects = projectsOf(store);
  // By default the folder `loom serve` runs in, as `loom ls` lists the folder it runs in.
  const project = chosen ?? projects.find((candidate) => candidate.current)?.directory;
  const everyProject = project === ALL_PROJECTS;
  if (project !== undefined && !everyProject && !projects.some((candidate) => candidate.directory === project))
    projects.push({ directory: project, current: false });
  useEffect(() => {
    connected.then(() => loadProjects()).catch(setError);
  }, [store.epoch]);
  useEffect(() => {
    if (project === undefined) return;
    connected.then(() => loadSessions(all, everyProject ? undefined : project)).catch(setError);
  }, [all, project, store.epoch]);
  const choose = (value) => {
    sessionStorage.setItem(PROJECT_KEY, value);
    setChosen(value);
  };
  const sessions = [...store.sessions.values()]
    .filter((session) => (all || !session.parentID) && (everyProject || projectOf(session) === project))
    .sort((a, b) => b.time.updated - a.time.updated)
    .slice(0, 100)
    // Those waiting for a person's answer come first.
    .sort((a, b) => Number(needsPerson(b)) - Number(needsPerson(a)));
  const tokensOf = useTreeTokens(sessions);
  const startIn = everyProject ? projects.find((candidate) => candidate.current)?.directory : project;
  return html`
    <${NewSession} directory=${startIn} />
    <section>
      <h1>Sessions</h1>
      <div class="row project-bar">
        <label
          >Project
          <select aria-label="Project" value=${project ?? ''} onChange=${(event) => choose(event.currentTarget.value)}>
            ${projects.map(
              (candidate) =>
                html`<option key=${candidate.directory} value=${candidate.directory}>
                  ${candidate.directory}${candidate.current ? ' (this server)' : ''}
                </option>`,
            )}
            <option value=${ALL_PROJECTS}>All projects</option>
          </select></label
        >
        <label class="toggle"
          ><input type="checkbox" checked=${all} onChange=${(event) => setAll(event.currentTarget.checked)} /> include
          subagent sessions</label
        >
      </div>
      <${ErrorLine} error=${error} />
      ${
        sessions.length === 0 && project !== undefined
          ? html`<p class="muted" data-empty>
              ${everyProject ? 'No sessions yet.' : `No sessions in ${project} yet.`}
              ${!everyProject && projects.length > 1 ? ' Other projects have some: choose one above.' : ''}
            </p>`
          : null
      }
      <table class="sessions">
        <thead>
          <tr>
            <th>Title</th>
            ${everyProject ? html`<th>Folder</th>` : null}
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
              <tr
                key=${session.id}
                data-session=${session.id}
                class=${needsPerson(session) ? 'needs-person' : undefined}
                title=${needsPerson(session) ? 'Waits for your approval: open it to answer' : undefined}
              >
                <td>
                  <a href=${href('session', session.id)}>${session.title}</a>
                  <div class="id">${session.id}</div>
                </td>
                ${everyProject ? html`<td class="folder" data-folder>${projectOf(session)}</td>` : null}
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

/** Starts a session (POST /session) in `directory`, the project shown, and opens it. */
function NewSession({ directory }) {
  const [agents, setAgents] = useState([]);
  const [agent, setAgent] = useState('');
  const [prompt, setPrompt] = useState('');
  const [error, setError] = useState();
  const [sending, setSending] = useState(false);
  useEffect(() => {
    api(`/agent${directory ? `?directory=${encodeURIComponent(directory)}` : ''}`)
      .then((rows) => setAgents(rows.filter((row) => row.mode !== 'subagent')))
      .catch(() => undefined);
  }, [directory]);
  const start = async (event) => {
    event.preventDefault();
    setSending(true);
    setError(undefined);
    try {
      const { id } = await api('/session', {
        method: 'POST',
        body: { prompt, ...(agent ? { agent } : {}), ...(directory ? { directory } : {}) },
      });
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
        ${directory ? html`<span class="muted" data-starts-in>in <code>${directory}</code></span>` : null}
      </div>
      <${ErrorLine} error=${error} />
    </form>
  `;
}
