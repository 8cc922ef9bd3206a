import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import { Part } from '../../../core/records/part.js';
import type { Session } from '../../../core/records/session.js';
import { currentCursor } from '../../follow/session-changes.js';
import type { ServeDeps } from '../deps.js';
import { sendPromptTo, type PromptRequest } from '../prompt-sending.js';
import { ServedMessage, servedMessage } from './shapes.js';
import { madeUpAnswer, turnAnswer } from './turn-answer.js';

/** Whitespace this often keeps a long turn's connection open through proxies and clients' timeouts. */
const KEEP_ALIVE_MS = 10_000;

export const TurnAnswerBody = z.object({ info: ServedMessage, parts: z.array(Part) }).openapi('TurnAnswer');

/**
 * OpenCode's blocking prompt: sends the prompt (its refusals are answered as errors, before
 * anything is sent back), then answers 200 at once and writes the turn's answer when it ends. A
 * JSON reader skips the whitespace written meanwhile. A caller that goes away leaves the run going.
 */
export async function answerWhenDone(
  c: Context,
  deps: ServeDeps,
  session: Session,
  request: PromptRequest,
): Promise<Response> {
  const cursor = await currentCursor(deps.store, session.id);
  const sent = await sendPromptTo(deps, session, request);
  c.header('Content-Type', 'application/json');
  return stream(c, async (out) => {
    const gone = new AbortController();
    out.onAbort(() => gone.abort());
    const keepAlive = setInterval(() => void out.write(' ').catch(() => gone.abort()), KEEP_ALIVE_MS);
    try {
      await out.write(' ');
      const answer = await turnAnswer(deps, session, sent, cursor, gone.signal).catch((error: Error) => ({
        info: servedMessage(
          madeUpAnswer(session, '', {
            name: 'UnknownError',
            message: `Could not read the answer of session ${session.id}: ${error.message}`,
          }),
        ),
        parts: [],
      }));
      if (answer) await out.write(JSON.stringify(answer));
    } finally {
      clearInterval(keepAlive);
    }
  });
}
