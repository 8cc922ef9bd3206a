// A change an agent's work made to the project's configuration, which no run uses until a person
// trusts it: which files, what it sets, the diff, and a button that trusts exactly what was shown.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorLine, html } from '../html.js';
import { Diff } from './diff.js';

/** Shown on a session's page for its folder; looked at again when `refresh` changes (a run ended, say). */
export function ConfigBanner({ directory, refresh }) {
  const [waiting, setWaiting] = useState();
  const [open, setOpen] = useState(false);
  const [error, setError] = useState();
  const [sending, setSending] = useState(false);
  useEffect(() => {
    api(`/config?directory=${encodeURIComponent(directory)}`)
      .then((state) => setWaiting(state.waiting ?? undefined))
      .catch(() => setWaiting(undefined));
  }, [directory, refresh]);
  if (!waiting) return null;
  const trust = async () => {
    setSending(true);
    setError(undefined);
    try {
      await api('/config/trust', { method: 'POST', body: { directory, id: waiting.id } });
      setWaiting(undefined);
    } catch (failure) {
      setError(failure);
    } finally {
      setSending(false);
    }
  };
  const who = waiting.sessionId ? `during session ${waiting.sessionId}` : "during an agent's work";
  return html`
    <section class="config-banner" role="alert" data-config-waiting=${waiting.id}>
      <p>
        <strong>⚠ Loom's configuration changed ${who}</strong>, and no run uses it until you trust it:
        ${waiting.files.map((file) => html`<code key=${file}>${file}</code> `)}
      </p>
      ${
        waiting.notable.length
          ? html`<ul class="notable">
              ${waiting.notable.map((line) => html`<li key=${line}><code>${line}</code></li>`)}
            </ul>`
          : null
      }
      <div class="row">
        <button onClick=${() => setOpen(!open)}>${open ? 'Hide the change' : 'Review the change'}</button>
        <button
          class="danger"
          disabled=${sending || !open}
          title=${open ? '' : 'Review the change first'}
          onClick=${() => void trust()}
        >
          Trust these files
        </button>
      </div>
      ${open ? html`<${Diff} text=${waiting.diff} />` : null}
      <${ErrorLine} error=${error} />
    </section>
  `;
}
