// What one step did to the files: its `patch` part as "N files changed", and on demand the step's
// unified diff from GET /session/{id}/diff?messageID=<the step's message>.
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { ErrorLine, html } from '../html.js';
import { Diff } from './diff.js';

const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function StepFiles({ part }) {
  const [open, setOpen] = useState(false);
  const [files, setFiles] = useState();
  const [error, setError] = useState();
  const [loading, setLoading] = useState(false);
  if (part.files.length === 0) return null;
  const toggle = async () => {
    setOpen(!open);
    if (open || files) return;
    setLoading(true);
    setError(undefined);
    try {
      const query = `messageID=${encodeURIComponent(part.messageID)}`;
      setFiles(await api(`/session/${encodeURIComponent(part.sessionID)}/diff?${query}`));
    } catch (failure) {
      setError(failure);
    } finally {
      setLoading(false);
    }
  };
  return html`
    <div class="step-files" data-patch=${part.id}>
      <div class="row">
        <span>${plural(part.files.length, 'file')} changed</span>
        <button aria-expanded=${open} disabled=${loading} onClick=${() => void toggle()}>
          ${open ? 'Hide diff' : 'Show diff'}
        </button>
      </div>
      <ul class="changed-files">
        ${part.files.map((file) => html`<li key=${file}><code>${file}</code></li>`)}
      </ul>
      ${open && loading ? html`<p class="muted">Reading the diff…</p>` : null}
      ${open ? html`<${ErrorLine} error=${error} />` : null}
      ${open && files ? html`<${FileDiffs} files=${files} />` : null}
    </div>
  `;
}

function FileDiffs({ files }) {
  if (files.length === 0) return html`<p class="muted">No difference left between the snapshots of this step.</p>`;
  return files.map(
    (file) => html`
      <div class="file-diff" key=${file.file} data-file=${file.file}>
        <p class="file-head">
          <code>${file.file}</code>
          <span class="muted">${file.status}</span>
          <span class="add">+${file.additions}</span>
          <span class="del">−${file.deletions}</span>
        </p>
        <${Diff} text=${file.diff} />
      </div>
    `,
  );
}
