import { CliError } from '../cli-error.js';
import type { CliContext } from '../context.js';
import type { SessionStore } from '../../activities/store/store.js';
import type { MessageWithParts } from '../../core/message.js';
import { hostsWithoutWorkers, hostWaitNote } from '../host-waits.js';
import { formatCost } from '../render/money.js';
import { plural } from '../render/plural.js';
import { renderSession } from '../render/session-view.js';
import { taskSessionId, type ToolPart } from '../render/tool-call.js';
import { sessionTree, totalTokens } from '../session-tree.js';

/** `loom show <sessionId>`: every message and part of a session, from the store. */
export async function showCommand(context: CliContext, sessionId: string, options: { json?: boolean; full?: boolean }): Promise<number> {
  const session = await context.store.getSession(sessionId);
  if (!session) throw new CliError(`Unknown session "${sessionId}". \`loom ls\` lists sessions.`);
  const messages = await context.store.messages(sessionId);
  const tree = await sessionTree(context.store, session);
  const usage = { own: tree.own, tree: tree.tree };
  if (options.json) {
    process.stdout.write(`${JSON.stringify({ session, messages, children: tree.children.map((child) => child.session.id), usage })}\n`);
    return 0;
  }
  const waiting = hostWaitNote(session, await hostsWithoutWorkers(context, [session]));
  const subagentCalls = await subagentToolCalls(context.store, messages);
  process.stdout.write(`${renderSession(session, messages, { full: options.full, subagentCalls })}\n`);
  if (waiting) process.stdout.write(`\n${waiting}\n`);
  const own = plural(totalTokens(usage.own.tokens), 'token');
  const cost = usage.tree.cost ? ` · ${formatCost(usage.own.cost)}` : '';
  const withChildren = tree.children.length
    ? ` · ${plural(totalTokens(usage.tree.tokens), 'token')}${usage.tree.cost ? `, ${formatCost(usage.tree.cost)}` : ''} with ${plural(tree.children.length, 'subagent session')} (\`loom tree ${session.id}\`)`
    : '';
  process.stdout.write(`\n${own}${cost}${withChildren}\n`);
  return 0;
}

/** The tool calls of the subagent sessions this session's `task` calls ran, by session id. */
async function subagentToolCalls(store: SessionStore, messages: MessageWithParts[]): Promise<Map<string, ToolPart[]>> {
  const childIds = new Set(messages.flatMap(({ parts }) => parts.flatMap((part) => (part.type === 'tool' ? (taskSessionId(part) ?? []) : []))));
  const calls = new Map<string, ToolPart[]>();
  for (const childId of childIds) {
    const childMessages = await store.messages(childId);
    calls.set(childId, childMessages.flatMap(({ parts }) => parts.filter((part): part is ToolPart => part.type === 'tool')));
  }
  return calls;
}
