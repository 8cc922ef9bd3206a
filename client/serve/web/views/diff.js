// A unified diff as text nodes (never HTML: file contents are whatever a tool or a model wrote).
import { html } from '../html.js';

const kind = (line) =>
  line.startsWith('@@')
    ? 'hunk'
    : line.startsWith('+++') || line.startsWith('---')
      ? 'file'
      : line.startsWith('+')
        ? 'add'
        : line.startsWith('-')
          ? 'del'
          : 'ctx';

/** The headers jsdiff (`Index:`, `====`) and git (`diff --git`, `index …`, modes) put before `---`. */
const HEADER = /^(Index:|={5,}|diff --git |index [0-9a-f]+\.\.|(new|deleted) file mode |old mode |new mode )/;

/** A unified diff, a line per row (a block each: see style.css), coloured by what happened to it. */
export function Diff({ text }) {
  const lines = text.split('\n').filter((line) => !HEADER.test(line));
  if (lines.at(-1) === '') lines.pop();
  return html`<pre class="diff">
${lines.map((line, i) => html`<span key=${i} class=${kind(line)}>${line || ' '}</span>`)}</pre>`;
}
