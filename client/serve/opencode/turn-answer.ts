import { setTimeout as sleep } from 'node:timers/promises';
import { newId } from '../../../core/records/ids.js';
import { zeroTokens, type AssistantMessage, type MessageError } from '../../../core/records/message.js';
import type { Part } from '../../../core/records/part.js';
import type { Session } from '../../../core/records/session.js';
import type { SentPrompt } from '../../services/sessions.js';
import { runFailure } from '../../follow/run-failure.js';
import { isTransportError } from '../../temporal/transport-error.js';
import type { ServeDeps } from '../deps.js';
import { describedPart } from '../tool-description.js';
import { servedMessage, type ServedMessage } from './shapes.js';

/** Between attempts to wait for a run while Temporal is out of reach. */
const RETRY_MS = 2_000;

export interface TurnAnswer {
  info: ServedMessage;
  parts: Part[];
}

/**
 * The answer to a prompt once its turn is over, as OpenCode's blocking prompt returns it: the
 * last assistant message that answers it, with its parts. A turn that failed or was cancelled
 * answers with its error on that message (one made up when the run wrote none). Undefined when
 * `signal` aborts first (the caller went away; the run goes on).
 */
export async function turnAnswer(
  deps: ServeDeps,
  session: Session,
  sent: SentPrompt,
  cursor: number,
  signal: AbortSignal,
): Promise<TurnAnswer | undefined> {
  const runError = await runEnd(deps, session.id, sent.runId, signal);
  if (signal.aborted) return undefined;
  const { messages } = await deps.store.changes(session.id, cursor);
  const asked = messages.find((message) => message.role === 'user' && message.promptID === sent.promptId);
  const answers = messages.filter(
    (message): message is AssistantMessage => message.role === 'assistant' && message.parentID === asked?.id,
  );
  const last = answers.sort((a, b) => a.time.created - b.time.created || a.step - b.step).at(-1);
  if (!last) {
    // A run that failed before its first step says why on the session.
    const now = (await deps.store.getSession(session.id)) ?? session;
    const error = runError ?? now.error ?? noAnswer(session.id);
    return { info: servedMessage(madeUpAnswer(now, asked?.id ?? '', error)), parts: [] };
  }
  const stored = (await deps.store.messages(session.id, last.id)).find((message) => message.info.id === last.id);
  const info = last.error || !runError ? last : { ...last, error: runError };
  return { info: servedMessage(info), parts: (stored?.parts ?? []).map(describedPart) };
}

/** Waits for the run to close: its error when it failed or was cancelled, undefined when it completed. */
async function runEnd(
  deps: ServeDeps,
  sessionId: string,
  runId: string,
  signal: AbortSignal,
): Promise<MessageError | undefined> {
  while (!signal.aborted) {
    try {
      const client = await deps.client();
      await client.withAbortSignal(signal, () => client.workflow.getHandle(sessionId, runId).result());
      return undefined;
    } catch (error) {
      if (signal.aborted) return undefined;
      if (!isTransportError(error)) return failureOf(error);
      await sleep(RETRY_MS, undefined, { signal }).catch(() => undefined);
    }
  }
  return undefined;
}

function failureOf(error: unknown): MessageError {
  const failure = runFailure(error);
  return failure.kind === 'cancelled'
    ? { name: 'MessageAbortedError', message: 'The run was cancelled' }
    : failure.error;
}

function noAnswer(sessionId: string): MessageError {
  return { name: 'UnknownError', message: `Session ${sessionId}: the turn ended without an answer.` };
}

/** An assistant message for a turn that ended before the run wrote one (it failed at once, say). */
export function madeUpAnswer(session: Session, parentId: string, error: MessageError): AssistantMessage {
  const now = Date.now();
  return {
    id: newId('msg', now, Math.random),
    sessionID: session.id,
    role: 'assistant',
    parentID: parentId,
    agent: session.agent,
    model: session.model,
    step: 0,
    time: { created: now, completed: now },
    error,
    tokens: zeroTokens(),
    cost: 0,
  };
}
