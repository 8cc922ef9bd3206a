// The permission requests waiting in a session tree, with the answers `loom approve` gives.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorLine, href, html } from '../html.js';
import { changed, state } from '../state.js';
import { Diff } from './diff.js';

export function Approvals({ rootId, currentId }) {
  const waiting = [...state.permissions.values()]
    .filter((request) => request.rootID === rootId && request.status === 'pending')
    .sort((a, b) => a.time.created - b.time.created);
  if (waiting.length === 0) return null;
  return html`
    <section class="approvals" aria-label="Waiting for approval">
      <h2>Waiting for approval</h2>
      ${waiting.map((request) => html`<${Request} key=${request.id} request=${request} currentId=${currentId} />`)}
    </section>
  `;
}

function Request({ request, currentId }) {
  const [feedback, setFeedback] = useState(undefined);
  const [error, setError] = useState();
  const [sending, setSending] = useState(false);
  const reply = async (kind, message) => {
    setSending(true);
    setError(undefined);
    try {
      const answered = await api(`/permission/${encodeURIComponent(request.id)}/reply`, {
        method: 'POST',
        body: { reply: kind, ...(message ? { message } : {}) },
      });
      state.permissions.set(answered.id, answered);
      changed();
    } catch (failure) {
      setError(failure);
    } finally {
      setSending(false);
    }
  };
  return html`
    <div class="request" data-request=${request.id}>
      <p>
        <strong>${request.title}</strong>${' '}
        <span class="muted"
          >${`· ${request.agent}`}${request.sessionID === currentId ? '' : html` in <a href=${href('session', request.sessionID)}>${request.sessionID}</a>`}</span
        >
      </p>
      ${request.reason ? html`<p class="muted">${request.reason}</p>` : null}
      ${request.grants ? request.grants.map((grant) => html`<p class="grant">${grant}</p>`) : null}
      ${request.diff ? html`<${Diff} text=${request.diff} />` : null}
      <p class="muted">
        ${`${request.permission}: `}${request.patterns.join(', ')}${request.always.length ? ` · “Always” allows ${request.always.join(', ')}` : ''}
      </p>
      <div class="row">
        <button disabled=${sending} onClick=${() => void reply('once')}>Allow once</button>
        <button disabled=${sending} onClick=${() => void reply('always')}>Always</button>
        <button disabled=${sending} class="danger" onClick=${() => void reply('reject')}>Reject</button>
        <button
          disabled=${sending}
          class="danger"
          onClick=${() => setFeedback(feedback === undefined ? '' : undefined)}
        >
          Reject with feedback…
        </button>
      </div>
      ${
        feedback === undefined
          ? null
          : html`
              <form
                class="feedback"
                onSubmit=${(event) => {
                  event.preventDefault();
                  void reply('reject', feedback.trim());
                }}
              >
                <textarea
                  placeholder="What the agent should do instead"
                  value=${feedback}
                  onInput=${(event) => setFeedback(event.currentTarget.value)}
                  rows="2"
                ></textarea>
                <button type="submit" disabled=${sending || !feedback.trim()}>Send feedback</button>
              </form>
            `
      }
      <${ErrorLine} error=${error} />
    </div>
  `;
}
