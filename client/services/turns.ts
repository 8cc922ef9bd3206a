import type { MessageRecords } from '../../activities/store/messages.js';
import type { SessionRecords } from '../../activities/store/sessions.js';
import { turnMessageIds } from '../../core/records/turns.js';
import { InputError } from '../input-error.js';
import { plural } from '../render/quantities.js';

/**
 * The message `given` names in a session: a message id (`msg_…`) as it is, or a turn number
 * (`3`, as `loom show` numbers turns) as that turn's user message. An unknown session is left to
 * the command to report.
 */
export async function messageIdFor(
  store: SessionRecords & MessageRecords,
  sessionId: string,
  given: string,
): Promise<string> {
  if (!/^\d+$/.test(given.trim()) || !(await store.getSession(sessionId))) return given;
  const turns = turnMessageIds(await store.messages(sessionId));
  const turn = Number(given);
  if (turn < 1 || turn > turns.length)
    throw new InputError(
      `Session ${sessionId} has ${plural(turns.length, 'turn')}: there is no turn ${given.trim()}. ` +
        `\`loom show ${sessionId}\` numbers them.`,
    );
  return turns[turn - 1];
}
