import pc from 'picocolors';
import { textWidth } from '../render/columns.js';
import type { AssistantMessage } from '../../../core/records/message.js';
import { totalTokens } from '../../../core/records/tokens.js';
import type { SessionSnapshot } from '../session/session-watch.js';
import { formatCost, formatTokens } from '../transcript/numbers.js';

/** Whose worker runs this session's runs: this process's, one elsewhere, or none yet. */
export type WorkerState = 'here' | 'remote' | 'none' | 'unknown';

export interface FooterFacts {
  agent: string;
  model: string;
  /** The model's context window, when known. */
  contextWindow?: number;
  worker: WorkerState;
  /** The Temporal UI's page of the session's runs, when there is a UI to link to. */
  runLink?: string;
}

/**
 * The footer: the agent and model the next prompt goes with, the session's tokens and cost with
 * its subagents', the context its last step used, its budget, whose worker runs it, and the link
 * to its runs in the Temporal UI.
 */
export function footerLine(snapshot: SessionSnapshot | undefined, facts: FooterFacts, width: number): string {
  const parts = [pc.bold(facts.agent), facts.model];
  const tree = snapshot?.tree;
  if (tree) {
    const own = totalTokens(tree.own.tokens);
    const all = totalTokens(tree.tree.tokens);
    const cost = tree.tree.cost > 0 ? ` ${formatCost(tree.tree.cost)}` : '';
    parts.push(
      all === own
        ? `${formatTokens(own)} tokens${cost}`
        : `${formatTokens(all)} tokens${cost} (${formatTokens(own)} here, rest subagents)`,
    );
    const used = contextUsed(snapshot, facts.contextWindow);
    if (used !== undefined) parts.push(`${used}% context`);
    if (tree.budget) parts.push(budgetText(tree.budget, tree.tree));
  }
  parts.push(workerText(facts.worker));
  const line = parts.join(pc.dim(' · '));
  const link = facts.runLink ? pc.dim(` · ${facts.runLink}`) : '';
  return textWidth(line + link) <= width ? line + link : line;
}

function contextUsed(snapshot: SessionSnapshot, window: number | undefined): number | undefined {
  if (!window) return undefined;
  for (let at = snapshot.entries.length - 1; at >= 0; at--) {
    const message = snapshot.entries[at].message;
    if (message.role === 'assistant' && message.tokens.output > 0)
      return Math.round((totalTokens((message as AssistantMessage).tokens) / window) * 100);
  }
  return undefined;
}

function budgetText(
  budget: { tokens?: number; cost?: number },
  spent: { tokens: Parameters<typeof totalTokens>[0]; cost: number },
): string {
  const lines: string[] = [];
  if (budget.tokens) lines.push(`${formatTokens(totalTokens(spent.tokens))}/${formatTokens(budget.tokens)} tokens`);
  if (budget.cost) lines.push(`${formatCost(spent.cost)}/${formatCost(budget.cost)}`);
  return `budget ${lines.join(', ')}`;
}

function workerText(state: WorkerState): string {
  switch (state) {
    case 'here':
      return pc.green('worker: this process');
    case 'remote':
      return pc.green('worker: elsewhere');
    case 'none':
      return pc.yellow('worker: none (runs wait for `loom worker`)');
    default:
      return pc.dim('worker: …');
  }
}
