import { CliError } from '../cli-error.js';
import type { CliContext } from '../context.js';
import { hostsWithoutWorkers, hostWaitNote } from '../follow/host-waits.js';
import { formatCost } from '../render/quantities.js';
import { plural } from '../render/quantities.js';
import { renderSession } from '../render/session-view.js';
import { sessionTree, totalTokens } from '../services/session-tree.js';

/** `loom show <sessionId>`: every message and part of a session, from the store. */
export async function showCommand(
  context: CliContext,
  sessionId: string,
  options: { json?: boolean; full?: boolean },
): Promise<number> {
  const session = await context.store.getSession(sessionId);
  if (!session) throw new CliError(`Unknown session "${sessionId}". \`loom ls\` lists sessions.`);
  const messages = await context.store.messages(sessionId);
  const tree = await sessionTree(context.store, session);
  const usage = { own: tree.own, tree: tree.tree };
  if (options.json) {
    process.stdout.write(
      `${JSON.stringify({ session, messages, children: tree.children.map((child) => child.session.id), usage })}\n`,
    );
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
  return 0;
}
