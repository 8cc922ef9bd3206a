import { RequestError, type SessionUpdate, type StopReason } from '@agentclientprotocol/sdk';
import type { Message } from '../../core/records/message.js';
import { errorMessage } from '../../core/text/error-message.js';
import type { ClientContext } from '../context.js';
import { runFailure } from '../follow/run-failure.js';
import { reconnectLimit, RunFollower, type Followed } from '../follow/run-follower.js';
import { followSession } from '../follow/session-changes.js';
import type { PermissionAsker } from './permission-asker.js';
import { sessionInfoUpdates } from './session-info.js';
import { SessionUpdates } from './session-updates.js';

const PERMISSION_CHECK_MS = 300;

export interface Turn {
  /** The editor's session (a loaded child session is its own). */
  acpSessionId: string;
  sessionId: string;
  rootId: string;
  /** The run to follow to its end. */
  runId: string;
  directory: string;
  /** Where the session's transcript stood before the turn: only what comes after is sent. */
  cursor: number;
  /** Send the user's prompts too (a session being loaded). */
  users: boolean;
  /** What the editor was sent already (a replay before the run is followed), so nothing is sent twice. */
  updates?: SessionUpdates;
  /** Whether the editor cancelled this turn (its prompt then answers `cancelled`, whatever the run did). */
  cancelled: () => boolean;
}

/**
 * Follows a run of a session until it ends, streaming what it writes to the editor as
 * `session/update`s and asking its tree's permission requests. Answers how the turn stopped; a
 * failed run is a JSON-RPC error with Loom's message.
 */
export async function followTurn(
  context: ClientContext,
  turn: Turn,
  send: (update: SessionUpdate) => Promise<void>,
  asker: PermissionAsker,
): Promise<StopReason> {
  const { target } = await context.temporal();
  const follower = new RunFollower(
    { temporal: target, workflowId: turn.sessionId, runId: turn.runId },
    { limitMs: reconnectLimit(context.env), report: context.report },
  );
  const ended = follower.result();
  const permissions = setInterval(() => {
    asker
      .check(turn.acpSessionId, turn.rootId)
      .catch((error) => context.report(`loom acp: could not check permission requests: ${errorMessage(error)}`));
  }, PERMISSION_CHECK_MS);
  try {
    const messages = await stream(context, turn, send, ended);
    for (const update of await sessionInfoUpdates(context, turn.sessionId)) await send(update);
    return stopReason(await ended, messages, turn);
  } finally {
    clearInterval(permissions);
    await follower.close();
  }
}

/** Sends the session's changes until the run has ended and its last writes are sent; the messages seen. */
async function stream(
  context: ClientContext,
  turn: Turn,
  send: (update: SessionUpdate) => Promise<void>,
  ended: Promise<Followed>,
): Promise<Message[]> {
  const updates = turn.updates ?? new SessionUpdates(turn.directory, { users: turn.users });
  const messages = new Map<string, Message>();
  await followSession(
    context.store,
    turn.sessionId,
    turn.cursor,
    {
      async update(changes) {
        for (const message of changes.messages) messages.set(message.id, message);
        for (const update of updates.next(changes.messages, changes.parts)) await send(update);
      },
    },
    ended,
  );
  return [...messages.values()];
}

function stopReason(followed: Followed, messages: Message[], turn: Turn): StopReason {
  if (turn.cancelled()) return 'cancelled';
  if (followed.kind === 'unreachable') {
    throw new RequestError(
      -32603,
      `Stopped following ${turn.sessionId}: the Temporal server has been unreachable (${followed.reason}); the session may still be going`,
    );
  }
  if (followed.kind === 'error') {
    const failure = runFailure(followed.error);
    if (failure.kind === 'cancelled') return 'cancelled';
    const { name, message } = failure.error;
    throw new RequestError(-32603, `Session ${turn.sessionId} failed: ${name}: ${message}`, {
      sessionId: turn.sessionId,
    });
  }
  const last = messages.filter((message) => message.role === 'assistant').at(-1);
  const finish = last?.role === 'assistant' ? last.finish : undefined;
  if (finish === 'length') return 'max_tokens';
  if (finish === 'content-filter') return 'refusal';
  return 'end_turn';
}
