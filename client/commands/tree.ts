import pc from 'picocolors';
import { InputError } from '../input-error.js';
import type { ClientContext } from '../context.js';
import type { Session } from '../../core/records/session.js';
import { spendAgainstBudget } from '../../core/runs/budget.js';
import { hostsWithoutWorkers, hostWaitNote } from '../follow/host-waits.js';
import { formatCost } from '../render/quantities.js';
import { plural } from '../render/quantities.js';
import { sessionTree, totalTokens, type SessionNode } from '../services/session-tree.js';

/** `loom tree <sessionId>`: the session and its subagents, with tokens and cost per node and subtree. */
export async function treeCommand(
  context: ClientContext,
  sessionId: string,
  options: { json?: boolean },
): Promise<number> {
  const session = await context.store.getSession(sessionId);
  if (!session) throw new InputError(`Unknown session "${sessionId}". \`loom ls\` lists sessions.`);
  const root = await sessionTree(context.store, session);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(toJson(root))}\n`);
    return 0;
  }
  const unserved = await hostsWithoutWorkers(context, sessionsOf(root));
  process.stdout.write(`${render(root, unserved, '', true, true).join('\n')}\n`);
  return 0;
}

function toJson(node: SessionNode): unknown {
  const { session } = node;
  return {
    id: session.id,
    agent: session.agent,
    title: session.title,
    status: session.status,
    model: session.model,
    ...(session.host ? { host: session.host } : {}),
    tokens: { own: node.own.tokens, tree: node.tree.tokens },
    cost: { own: node.own.cost, tree: node.tree.cost },
    ...(node.budget ? { budget: node.budget } : {}),
    children: node.children.map(toJson),
  };
}

function sessionsOf(node: SessionNode): Session[] {
  return [node.session, ...node.children.flatMap(sessionsOf)];
}

function render(node: SessionNode, unserved: Set<string>, indent: string, last: boolean, root: boolean): string[] {
  const { session } = node;
  const own = totalTokens(node.own.tokens);
  const tree = totalTokens(node.tree.tokens);
  const usage = node.children.length
    ? `${plural(own, 'token')} (tree ${tree.toLocaleString('en-US')})`
    : plural(own, 'token');
  const cost = !node.tree.cost
    ? ''
    : node.children.length
      ? ` · ${formatCost(node.own.cost)} (tree ${formatCost(node.tree.cost)})`
      : ` · ${formatCost(node.own.cost)}`;
  const budget = node.budget
    ? ` · budget ${spendAgainstBudget({ budget: node.budget, spent: { tokens: tree, cost: node.tree.cost } })}`
    : '';
  const branch = root ? '' : last ? '└─ ' : '├─ ';
  const waiting = hostWaitNote(session, unserved);
  const line =
    `${indent}${branch}${pc.bold(session.agent)} ${session.title} ${pc.dim(`· ${session.status} · ${usage}${cost}${budget} · ${session.id}`)}` +
    (waiting ? ` ${pc.yellow(waiting)}` : '');
  const childIndent = root ? '' : `${indent}${last ? '   ' : '│  '}`;
  return [
    line,
    ...node.children.flatMap((child, index) =>
      render(child, unserved, childIndent, index === node.children.length - 1, false),
    ),
  ];
}
