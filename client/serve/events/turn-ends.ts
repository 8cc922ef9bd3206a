import type { MessageError } from '../../../core/records/message.js';
import { openCodeError } from '../opencode/shapes.js';
import type { ServerEvent } from './event-types.js';

/** Sessions one connection follows at most; past it the oldest are forgotten (their ends go unsaid). */
const TURNS = 2_000;

/**
 * OpenCode's `session.idle` (and `session.error` before it when the turn failed or was cancelled),
 * sent after the `session.status` that says a session's turn is over. The stream carries rows'
 * latest states, so a turn that started and ended between two reads shows no busy status: a
 * session counts as in a turn on this connection once it was seen busy or writing messages.
 */
export class TurnEnds {
  /** Sessions in a turn, with the last error one of their messages reported. */
  private readonly open = new Map<string, { error?: MessageError }>();

  /** The events that follow `event` on the stream. */
  after(event: ServerEvent): ServerEvent[] {
    switch (event.type) {
      case 'message.updated': {
        const { info } = event.properties;
        this.mark(info.sessionID).error = info.role === 'assistant' ? (info.error ?? undefined) : undefined;
        return [];
      }
      case 'message.part.updated':
        this.mark(event.properties.part.sessionID);
        return [];
      case 'session.updated':
      case 'session.created': {
        const { info } = event.properties;
        // A run that failed before any step says why on the session itself.
        if (info.error && this.open.has(info.id)) this.open.get(info.id)!.error ??= info.error;
        return [];
      }
      case 'session.status': {
        const { sessionID, status } = event.properties;
        if (status.type === 'busy') {
          this.mark(sessionID);
          return [];
        }
        const turn = this.open.get(sessionID);
        if (!turn) return [];
        this.open.delete(sessionID);
        const idle: ServerEvent = { type: 'session.idle', properties: { sessionID } };
        if (status.detail === 'idle') return [idle];
        const error =
          status.detail === 'cancelled'
            ? { name: 'MessageAbortedError', message: 'The run was cancelled', ...turn.error }
            : (turn.error ?? { name: 'UnknownError', message: `Session ${sessionID} failed` });
        return [{ type: 'session.error', properties: { sessionID, error: openCodeError(error) } }, idle];
      }
      default:
        return [];
    }
  }

  private mark(sessionId: string): { error?: MessageError } {
    let turn = this.open.get(sessionId);
    if (!turn) {
      if (this.open.size >= TURNS) this.open.delete(this.open.keys().next().value!);
      turn = {};
      this.open.set(sessionId, turn);
    }
    return turn;
  }
}
