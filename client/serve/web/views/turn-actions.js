// Undo, redo and fork on a session's turns: POST /session/{id}/revert, /unrevert and /fork. What
// an undo or a redo did (the files put back, those left alone) is told in the reverted banner.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorLine, href, html } from '../html.js';
import { changed, state, touch } from '../state.js';

/** POSTs a files request; the session it answers replaces the page's copy at once (its events follow). */
async function post(sessionId, action, body) {
  const answer = await api(`/session/${encodeURIComponent(sessionId)}/${action}`, { method: 'POST', body });
  const { restored, conflicts, ...session } = answer;
  touch(`ses:${session.id}`);
  state.sessions.set(session.id, session);
  changed();
  return { session, restored: restored ?? [], conflicts: conflicts ?? [] };
}

/** A request in flight: disables its buttons, and keeps the server's refusal to show. */
function useRequest() {
  const [sending, setSending] = useState(false);
  const [error, setError] = useState();
  const run = async (work) => {
    setSending(true);
    setError(undefined);
    try {
      await work();
    } catch (failure) {
      setError(failure);
    } finally {
      setSending(false);
    }
  };
  return { sending, error, run };
}

/** Undo (revert the session to this prompt) and Fork from here, on a user message. */
export function TurnActions({ session, messageId, busy, onReport }) {
  const { sending, error, run } = useRequest();
  const why = busy ? 'The session is busy: wait for its run to finish, or cancel it' : undefined;
  const undo = () =>
    run(async () => {
      const { restored, conflicts } = await post(session.id, 'revert', { messageID: messageId });
      onReport({ action: 'revert', messageID: messageId, restored, conflicts });
    });
  const fork = () =>
    run(async () => {
      const forked = await api(`/session/${encodeURIComponent(session.id)}/fork`, {
        method: 'POST',
        body: { messageID: messageId },
      });
      touch(`ses:${forked.id}`);
      state.sessions.set(forked.id, forked);
      changed();
      location.hash = href('session', forked.id);
    });
  return html`
    <span class="turn-actions">
      <button
        disabled=${busy || sending}
        title=${why ?? 'Put back the files this turn and the ones after it changed, and hide them from the model'}
        onClick=${() => void undo()}
      >
        Undo
      </button>
      <button
        disabled=${busy || sending}
        title=${why ?? 'A new session with the history before this message'}
        onClick=${() => void fork()}
      >
        Fork from here
      </button>
    </span>
    <${ErrorLine} error=${error} />
  `;
}

/**
 * A reverted session's hidden messages (`children`), dimmed and folded under a banner with Redo.
 * `report` is what the page's last undo answered; without one (a revert made elsewhere) the
 * session's own record says which files went back.
 */
export function Reverted({ session, busy, report, onReport, count, children }) {
  const { sending, error, run } = useRequest();
  const { revert } = session;
  const outcome =
    report?.action === 'revert' && report.messageID === revert.messageID
      ? report
      : {
          action: 'revert',
          messageID: revert.messageID,
          restored: revert.files.filter((file) => !revert.conflicts?.includes(file)),
          conflicts: revert.conflicts ?? [],
        };
  const redo = (force) =>
    run(async () => {
      const { restored, conflicts } = await post(session.id, 'unrevert', force ? { force: true } : {});
      onReport({ action: 'unrevert', restored, conflicts });
    });
  // The server refuses a redo that would overwrite files changed since the undo, naming them.
  const refusedRedo = /^Not unreverted:/.test(error?.message ?? '');
  const force = () =>
    run(async () => {
      const { restored, conflicts } = await post(session.id, 'revert', { messageID: revert.messageID, force: true });
      onReport({ action: 'revert', messageID: revert.messageID, restored, conflicts });
    });
  return html`
    <section class="reverted" aria-label="Reverted messages">
      <div class="revert-banner" role="status">
        <strong>Reverted: hidden from the model</strong>
        <span class="muted">Redo brings the files and messages back; the next prompt drops them for good.</span>
        <button disabled=${busy || sending} onClick=${() => void redo(false)}>Redo</button>
      </div>
      <${FilesOutcome} outcome=${outcome} busy=${busy || sending} onForce=${() => void force()} />
      <${ErrorLine} error=${error} />
      ${refusedRedo ? html`<button class="danger" disabled=${busy || sending} onClick=${() => void redo(true)}>Redo anyway</button>` : null}
      <details class="reverted-messages">
        <summary>${count === 1 ? '1 hidden message' : `${count} hidden messages`}</summary>
        ${children}
      </details>
    </section>
  `;
}

/** `a.txt, b.txt` as code, the commas between. */
const fileList = (files) => files.map((file, i) => html`${i ? ', ' : ''}<code key=${file}>${file}</code>`);

/** What an undo or a redo did to the files; an undo that left files alone offers to overwrite them. */
export function FilesOutcome({ outcome, busy, onForce }) {
  const { action, restored, conflicts } = outcome;
  // htm drops whitespace that spans lines, so the spaces between words are in the strings.
  const done = `${action === 'revert' ? 'Undone' : 'Redone'}: `;
  return html`
    <div class="files-outcome" data-action=${action}>
      <p>${done}${restored.length ? html`${'put back '}${fileList(restored)}` : 'no files to put back'}.</p>
      ${
        conflicts.length
          ? html`<p class="conflicts">
              ${'Left alone, changed since by someone else: '}${fileList(conflicts)}.
              ${action === 'revert' ? html`<button class="danger" disabled=${busy} onClick=${onForce}>Undo anyway</button>` : null}
            </p>`
          : null
      }
    </div>
  `;
}
