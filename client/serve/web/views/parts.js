// A transcript: messages oldest first, each part as it is now (events replace parts in place, so a
// running bash call's output grows as it streams). A turn has Undo and Fork; a reverted session's
// messages from the revert on are folded under a banner.
import { useState } from 'preact/hooks';
import { formatTokens, href, html, Markdown } from '../html.js';
import { Diff } from './diff.js';
import { StepFiles } from './step-files.js';
import { FilesOutcome, Reverted, TurnActions } from './turn-actions.js';

/**
 * `from`: who wrote the session's prompts when it was not the person (a subagent's come from its
 * parent agent), in which case its turns offer no Undo or Fork.
 */
export function Transcript({ transcript, session, busy, from }) {
  const [report, setReport] = useState();
  const messages = [...transcript.values()]
    .filter((entry) => entry.info)
    .sort((a, b) => (a.info.id < b.info.id ? -1 : 1));
  if (messages.length === 0) return html`<p class="muted">No messages yet.</p>`;
  // Ids sort by creation: the revert hides its message and every later one.
  const cut = session.revert?.messageID;
  const shown = cut ? messages.filter((entry) => entry.info.id < cut) : messages;
  const hidden = cut ? messages.filter((entry) => entry.info.id >= cut) : [];
  // A redo's report stays until the transcript moves on.
  const last = messages.at(-1).info.id;
  const onReport = (outcome) => setReport({ ...outcome, last });
  const actions = from ? undefined : { session, busy, onReport };
  return html`<div class="transcript">
    ${shown.map((entry) => html`<${MessageView} key=${entry.info.id} entry=${entry} actions=${actions} from=${from} />`)}
    ${
      cut
        ? html`<${Reverted} session=${session} busy=${busy} report=${report} onReport=${onReport} count=${hidden.length}>
            ${hidden.map((entry) => html`<${MessageView} key=${entry.info.id} entry=${entry} from=${from} />`)}
          </${Reverted}>`
        : report?.action === 'unrevert' && report.last === last
          ? html`<${FilesOutcome} outcome=${report} />`
          : null
    }
  </div>`;
}

/** A message; `actions` (the session, whether it is busy, where undo reports go) puts Undo and Fork on a turn. */
function MessageView({ entry: { info, parts }, actions, from }) {
  const sorted = [...parts.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  const user = info.role === 'user';
  return html`
    <article class=${`message ${info.role}`} data-message=${info.id}>
      <header>
        <strong data-author>${user ? (from ?? 'You') : info.agent}</strong>
        ${user ? null : html`<span class="muted">${info.model}${info.step ? ` · step ${info.step}` : ''}${info.tokens ? ` · ${formatTokens(info.tokens)}` : ''}</span>`}
        ${!user && !info.time.completed ? html`<span class="spinner" title="working">…</span>` : null}
        ${user && actions ? html`<${TurnActions} ...${actions} messageId=${info.id} />` : null}
      </header>
      ${sorted.map((part) => html`<${PartView} key=${part.id} part=${part} user=${user} />`)}
      ${info.error ? html`<p class="error" role="alert">${info.error.name}: ${info.error.message}</p>` : null}
    </article>
  `;
}

function PartView({ part, user }) {
  switch (part.type) {
    case 'text':
      if (part.synthetic)
        return html`<details class="synthetic">
          <summary>Loom note</summary>
          <pre>${part.text}</pre>
        </details>`;
      return user ? html`<div class="user-text">${part.text}</div>` : html`<${Markdown} text=${part.text} />`;
    case 'reasoning':
      return html`<details class="reasoning">
        <summary>Reasoning</summary>
        <${Markdown} text=${part.text} />
      </details>`;
    case 'tool':
      return html`<${ToolView} part=${part} />`;
    case 'file':
      return html`<p class="attachment">📎 ${part.filename ?? part.mime}</p>`;
    case 'agent':
      return html`<p class="muted">@${part.name}</p>`;
    case 'subtask':
      return html`<p class="muted">Subtask for @${part.agent}: ${part.description}</p>`;
    case 'patch':
      return html`<${StepFiles} part=${part} />`;
    case 'compaction':
      return html`<p class="compaction">— conversation summarised${part.auto ? ' (automatically)' : ''} —</p>`;
    default:
      return null;
  }
}

const ICON = { pending: '○', running: '◐', completed: '✓', error: '✗' };

function ToolView({ part }) {
  const { tool, state } = part;
  const input = state.input ?? {};
  const metadata = state.metadata ?? {};
  // The server describes each call as the CLI does (`glob **/*.md`); the tool's name leads it.
  const description = part.description ?? tool;
  const about = description.startsWith(`${tool} `) ? description.slice(tool.length + 1) : '';
  const output =
    state.status === 'completed'
      ? state.output
      : state.status === 'running' && typeof metadata.output === 'string'
        ? metadata.output
        : undefined;
  const child = tool === 'task' ? metadata.sessionId : undefined;
  // A command the sandbox refused ran to its end, but did not do what it was asked: shown as failed, with why.
  const refusal =
    state.status === 'completed' && typeof metadata.sandboxRefusal === 'string' ? metadata.sandboxRefusal : undefined;
  const shownState = refusal ? 'error' : state.status;
  return html`
    <details
      class=${`tool tool-${shownState}`}
      open=${shownState !== 'completed' || undefined}
      data-tool=${tool}
      data-part=${part.id}
      data-state=${state.status}
    >
      <summary>
        <span class="icon">${ICON[shownState]}</span> <strong>${tool}</strong>
        <span class="title" title=${about}>${about}</span>
        <span class="state">${refusal ? 'refused by the sandbox' : state.status}</span>
        ${child ? html`<a class="open-child" href=${href('session', child)} onClick=${(event) => event.stopPropagation()}>open subagent →</a>` : null}
      </summary>
      <div class="tool-body">
        ${tool === 'bash' ? html`<pre class="input">$ ${input.command}</pre>` : html`<pre class="input">${JSON.stringify(input, null, 2)}</pre>`}
        ${
          Array.isArray(metadata.summary) && metadata.summary.length
            ? html`<ul class="steps">
                ${metadata.summary.map(
                  (step) =>
                    html`<li key=${step.id} class=${`step-${step.status}`}>
                      <span class="icon">${ICON[step.status] ?? '·'}</span
                      >${' '}${step.description ?? `${step.tool} ${step.title ?? ''}`}
                    </li>`,
                )}
              </ul>`
            : null
        }
        ${typeof metadata.diff === 'string' ? html`<${Diff} text=${metadata.diff} />` : null}
        ${output ? html`<pre class="output">${output}</pre>` : null}
        ${state.status === 'error' ? html`<pre class="error">${state.error}</pre>` : null}
        ${refusal ? html`<p class="error sandbox-refusal">The sandbox refused: ${refusal}</p>` : null}
        ${metadata.exit !== undefined && metadata.exit !== null && metadata.exit !== 0 ? html`<p class="error">exit code ${metadata.exit}</p>` : null}
      </div>
    </details>
  `;
}
