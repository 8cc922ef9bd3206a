// Small pieces every view uses: `html` templates, sanitized markdown, status, tokens, links.
import DOMPurify from 'dompurify';
import htm from 'htm';
import { marked } from 'marked';
import { h } from 'preact';
import { useMemo } from 'preact/hooks';
import { state } from './state.js';

export const html = htm.bind(h);

/**
 * Model-written markdown as HTML. Whatever the model wrote goes through DOMPurify before it
 * reaches the DOM: a prompt-injected model will try `<script>`, `onerror=` and `javascript:` links.
 */
export function Markdown({ text }) {
  const clean = useMemo(() => DOMPurify.sanitize(marked.parse(text ?? '', { async: false })), [text]);
  return html`<div class="markdown" dangerouslySetInnerHTML=${{ __html: clean }}></div>`;
}

export function Status({ status }) {
  return html`<span class=${`status status-${status}`} data-status=${status}>${status}</span>`;
}

const sum = (tokens) => tokens.input + tokens.output + tokens.reasoning + tokens.cache.read + tokens.cache.write;

/** A tree's spend against its budget, counted as `loom tree` counts it: `budget 45,210 / 60,000 tokens · $0.12 / $1.00`. */
export function formatBudget(tree, budget) {
  if (!budget || !tree) return '';
  const spent = tree.tokens.input + tree.tokens.output + tree.tokens.cache.read + tree.tokens.cache.write;
  const parts = [];
  if (budget.tokens !== undefined)
    parts.push(`${Math.round(spent).toLocaleString('en-US')} / ${budget.tokens.toLocaleString('en-US')} tokens`);
  if (budget.cost !== undefined) parts.push(`$${tree.cost.toFixed(2)} / $${budget.cost.toFixed(2)}`);
  return `budget ${parts.join(' · ')}`;
}

export function formatTokens(tokens) {
  if (!tokens) return '';
  const n = sum(tokens);
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k tokens` : `${n} tokens`;
}

export function ago(time) {
  const seconds = Math.round((Date.now() - time) / 1000);
  if (seconds < 60) return `${Math.max(seconds, 0)}s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)} h ago`;
  return new Date(time).toLocaleString();
}

/** The run in the Temporal UI: a session's workflow id is its id, a batch's its id. */
export function TemporalLink({ workflowId }) {
  const { temporalUi, namespace } = state.config;
  if (!temporalUi) return null;
  const href = `${temporalUi}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
  return html`<a
    class="temporal"
    href=${href}
    target="_blank"
    rel="noopener noreferrer"
    title="This run in the Temporal UI"
    >Temporal ↗</a
  >`;
}

/** A hash route, e.g. `#/session/ses_…`. */
export const href = (...path) => `#/${path.map(encodeURIComponent).join('/')}`;

export function ErrorLine({ error }) {
  return error ? html`<p class="error" role="alert">${error.message ?? String(error)}</p>` : null;
}
