// Batches: a progress bar each, live from `batch.updated` events; a batch's page adds its controls
// and what became of each task.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.js';
import { connected } from '../events.js';
import { ago, ErrorLine, formatTokens, href, html, Status, TemporalLink } from '../html.js';
import { loadBatch, loadBatches, useStore } from '../state.js';

/** The bar's segments, in order; what is not yet running is the bar's empty track. */
const SEGMENTS = ['completed', 'failed', 'cancelled', 'running'];

/** A batch's tasks by outcome: a segment each, as wide as its share, and the numbers beside it. */
function Progress({ batch, counts = {} }) {
  const count = (status) => counts[status] ?? 0;
  const finished = count('completed') + count('failed') + count('cancelled');
  const total = Math.max(batch.total, 1);
  const shown = SEGMENTS.filter((status) => status === 'completed' || count(status) > 0);
  const words = shown.map((status) => `${count(status)} ${status}`).join(', ');
  return html`
    <div class="progress">
      <div
        class="bar"
        role="progressbar"
        aria-valuemin="0"
        aria-valuemax=${batch.total}
        aria-valuenow=${finished}
        aria-valuetext=${`${finished} of ${batch.total} finished: ${words}`}
      >
        ${SEGMENTS.map((status) =>
          count(status)
            ? html`<span
                key=${status}
                class=${status}
                data-segment=${status}
                style=${{ width: `${(100 * count(status)) / total}%` }}
              ></span>`
            : null,
        )}
      </div>
      <span class="num">${finished}/${batch.total}</span>
      <span class="legend">
        ${shown.map(
          (status) =>
            html`<span key=${status} data-count=${status}><i class=${status}></i>${count(status)} ${status}</span>`,
        )}
      </span>
    </div>
  `;
}

/** Cancel batch, after a yes in a dialog on the page: it cannot be undone. */
function CancelBatch({ batch, counts, onConfirm }) {
  const dialog = useRef();
  const running = counts.running ?? 0;
  const finished = (counts.completed ?? 0) + (counts.failed ?? 0) + (counts.cancelled ?? 0);
  const waiting = Math.max(batch.total - finished - running, 0);
  const tasks = (n, one, many) => `${n} ${n === 1 ? one : many}`;
  const consequence =
    `${tasks(running, 'running task stops', 'running tasks stop')} and ` +
    `${tasks(waiting, 'waiting task never starts', 'waiting tasks never start')}. ` +
    'Finished tasks keep their answers. This cannot be undone.';
  return html`
    <button class="danger" onClick=${() => dialog.current.showModal()}>Cancel batch</button>
    <dialog
      class="confirm"
      ref=${dialog}
      aria-labelledby="cancel-batch-question"
      onClose=${(event) => event.currentTarget.returnValue === 'cancel' && onConfirm()}
    >
      <p><strong id="cancel-batch-question">Cancel this batch?</strong></p>
      <p class="muted">${consequence}</p>
      <div class="row">
        <button autofocus onClick=${() => dialog.current.close('keep')}>Keep it running</button>
        <button class="danger" onClick=${() => dialog.current.close('cancel')}>Yes, cancel the batch</button>
      </div>
    </dialog>
  `;
}

export function BatchesPage() {
  const store = useStore();
  const [error, setError] = useState();
  useEffect(() => {
    connected.then(loadBatches).catch(setError);
  }, [store.epoch]);
  const rows = [...store.batches.values()].sort((a, b) => b.batch.time.created - a.batch.time.created);
  return html`
    <section>
      <h1>Batches</h1>
      <${ErrorLine} error=${error} />
      ${rows.length === 0 ? html`<p class="muted">No batches yet. <code>loom batch run tasks.jsonl</code> starts one.</p>` : null}
      <ul class="batches">
        ${rows.map(
          ({ batch, counts }) => html`
            <li key=${batch.id} data-batch=${batch.id}>
              <a href=${href('batch', batch.id)}>${batch.source}</a> <${Status} status=${batch.status} />
              <span class="muted">${batch.agent} · ${ago(batch.time.created)}</span>
              <span class="folder" data-folder title="The project its tasks work in">${batch.directory}</span>
              <${TemporalLink} workflowId=${batch.id} />
              <${Progress} batch=${batch} counts=${counts} />
            </li>
          `,
        )}
      </ul>
    </section>
  `;
}

export function BatchPage({ id }) {
  const store = useStore();
  const [results, setResults] = useState([]);
  const [tokens, setTokens] = useState();
  const [error, setError] = useState();
  const row = store.batches.get(id);
  const counts = row?.counts ?? {};
  // Results are read again as tasks finish.
  const finished = (counts.completed ?? 0) + (counts.failed ?? 0) + (counts.cancelled ?? 0);
  useEffect(() => {
    connected.then(() => loadBatch(id)).catch(setError);
  }, [id, store.epoch]);
  useEffect(() => {
    const path = `/batch/${encodeURIComponent(id)}`;
    Promise.all([api(`${path}/results?limit=1000`), api(path)])
      .then(([rows, detail]) => {
        setResults(rows);
        setTokens(detail.tokens);
      })
      .catch(setError);
  }, [id, finished, counts.running, store.epoch]);
  if (!row) return html`<${ErrorLine} error=${error} />${error ? null : html`<p class="muted">Loading ${id}…</p>`}`;
  const { batch } = row;
  const control = (action) =>
    api(`/batch/${encodeURIComponent(id)}/${action}`, { method: 'POST' })
      .then(() => loadBatch(id))
      .catch(setError);
  const live = batch.status === 'running' || batch.status === 'paused';
  return html`
    <section class="batch-page" data-batch=${id}>
      <h1>${batch.source}</h1>
      <p class="meta">
        <${Status} status=${batch.status} />
        <span class="muted"
          >${[batch.agent, batch.model, `concurrency ${batch.concurrency}`, `retries ${batch.retries}`].filter(Boolean).join(' · ')}</span
        >
        <span class="folder" data-folder>${batch.directory}</span>
        <span class="id">${batch.id}</span> <${TemporalLink} workflowId=${batch.id} />
        ${tokens ? html`<span class="muted">${formatTokens(tokens)}</span>` : null}
      </p>
      ${batch.parentSessionID ? html`<p><a href=${href('session', batch.parentSessionID)}>↑ started by ${batch.parentSessionID}</a></p>` : null}
      <${Progress} batch=${batch} counts=${counts} />
      ${
        live
          ? html`<div class="row">
              ${batch.status === 'running' ? html`<button onClick=${() => void control('pause')}>Pause</button>` : html`<button onClick=${() => void control('resume')}>Resume</button>`}
              <${CancelBatch} batch=${batch} counts=${counts} onConfirm=${() => void control('cancel')} />
            </div>`
          : null
      }
      <${ErrorLine} error=${error} />
      <table class="results">
        <thead>
          <tr>
            <th>#</th>
            <th>Task</th>
            <th>Status</th>
            <th>Answer</th>
            <th>Tokens</th>
          </tr>
        </thead>
        <tbody>
          ${results.map(
            ({ task, outcome, summary }) => html`
              <tr key=${outcome.index} data-task=${outcome.index}>
                <td class="num">${outcome.index + 1}</td>
                <td>
                  ${outcome.sessionId ? html`<a href=${href('session', outcome.sessionId)}>${task.description}</a>` : task.description}
                </td>
                <td>
                  <${Status}
                    status=${outcome.status}
                  />${outcome.attempts > 1 ? html`<span class="muted"> ×${outcome.attempts}</span>` : null}
                </td>
                <td class="answer">${outcome.error ? html`<span class="error">${outcome.error}</span>` : summary}</td>
                <td class="num">${formatTokens(outcome.tokens)}</td>
              </tr>
            `,
          )}
        </tbody>
      </table>
    </section>
  `;
}
