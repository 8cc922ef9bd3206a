import { InputError } from '../input-error.js';
import type { ClientContext } from '../context.js';
import { hostsWithoutWorkers, hostWaitNote } from '../follow/host-waits.js';
import { formatCost } from '../render/quantities.js';
import { plural } from '../render/quantities.js';
import { renderSession } from '../render/session-view.js';
import { sessionTree, totalTokens } from '../services/session-tree.js';
import { budgetStanding } from '../../activities/budget/standing.js';
import { spendAgainstBudget, type BudgetLine } from '../../core/runs/budget.js';

/** `budget of ses_… and its subagents: 45,210 / 60,000 tokens`. */
export function budgetLine(line: BudgetLine): string {
  const what = line.kind === 'batch' ? `budget of batch ${line.owner}` : `budget of ${line.owner} and its subagents`;
  return `${what}: ${spendAgainstBudget(line)}`;
}

/** `loom show <sessionId>`: every message and part of a session, from the store. */
export async function showCommand(
  context: ClientContext,
  sessionId: string,
  options: { json?: boolean; full?: boolean },
): Promise<number> {
  const session = await context.store.getSession(sessionId);
  if (!session) throw new InputError(`Unknown session "${sessionId}". \`loom ls\` lists sessions.`);
  const messages = await context.store.messages(sessionId);
  const tree = await sessionTree(context.store, session);
  const usage = { own: tree.own, tree: tree.tree };
  const { lines: budgets } = await budgetStanding(context.store, sessionId);
  if (options.json) {
    const children = tree.children.map((child) => child.session.id);
    process.stdout.write(`${JSON.stringify({ session, messages, children, usage, budgets })}\n`);
    return 0;
  }
  const waiting = hostWaitNote(session, await hostsWithoutWorkers(context, [session]));
  process.stdout.write(`${renderSession(session, messages, { full: options.full })}\n`);
  if (waiting) process.stdout.write(`\n${waiting}\n`);
  const own = plural(totalTokens(usage.own.tokens), 'token');
  const cost = usage.tree.cost ? ` · ${formatCost(usage.own.cost)}` : '';
  const withChildren = tree.children.length
    ? ` · ${plural(totalTokens(usage.tree.tokens), 'token')}${usage.tree.cost ? `, ${formatCost(usage.tree.cost)}` : ''} with ${plural(tree.children.length, 'subagent session')} (\`loom tree ${session.id}\`)`
    : '';
  process.stdout.write(`\n${own}${cost}${withChildren}\n`);
  for (const line of budgets) process.stdout.write(`${budgetLine(line)}\n`);
  return 0;
}
