import { z } from '@hono/zod-openapi';
import { LOOM_VERSION } from '../../../activities/process/package-root.js';
import { AssistantMessage, MessageError, UserMessage, type Message } from '../../../core/records/message.js';
import { Part } from '../../../core/records/part.js';
import { projectOf, Session, type Session as SessionRecord } from '../../../core/records/session.js';

// Loom's records as OpenCode's SDK reads them: Loom's fields stay (the web view and Loom's own
// clients read them), OpenCode's are added beside them where the two differ.

/** OpenCode's error shape `{name, data: {message}}`, with Loom's `message` kept beside it. */
export const OpenCodeError = MessageError.extend({
  data: z.object({
    message: z.string(),
    statusCode: z.number().optional(),
    isRetryable: z.boolean().optional(),
  }),
}).meta({ id: 'OpenCodeError' });
export type OpenCodeError = z.infer<typeof OpenCodeError>;

export function openCodeError(error: MessageError): OpenCodeError {
  const { message, statusCode, retryable } = error;
  return {
    ...error,
    data: {
      message,
      ...(statusCode === undefined ? {} : { statusCode }),
      ...(retryable === undefined ? {} : { isRetryable: retryable }),
    },
  };
}

/** An assistant message with OpenCode's `providerID`, `modelID` and `mode` (the agent). */
const ServedAssistantMessage = AssistantMessage.extend({
  providerID: z.string(),
  modelID: z.string(),
  mode: z.string(),
  error: OpenCodeError.optional(),
});
export const ServedMessage = z
  .discriminatedUnion('role', [UserMessage, ServedAssistantMessage])
  .meta({ id: 'Message' });
export type ServedMessage = z.infer<typeof ServedMessage>;
export const ServedMessageWithParts = z.object({ info: ServedMessage, parts: z.array(Part) }).meta({
  id: 'MessageWithParts',
});

export function servedMessage(message: Message): ServedMessage {
  if (message.role === 'user') return message;
  const { error, ...rest } = message;
  const slash = message.model.indexOf('/');
  return {
    ...rest,
    providerID: slash < 0 ? '' : message.model.slice(0, slash),
    modelID: message.model.slice(slash + 1),
    mode: message.agent,
    ...(error ? { error: openCodeError(error) } : {}),
  };
}

export function servedMessages<M extends { info: Message }>(messages: M[]): (M & { info: ServedMessage })[] {
  return messages.map((message) => ({ ...message, info: servedMessage(message.info) }));
}

/** A session with OpenCode's `projectID` (its project folder) and `version` (Loom's). */
export const ServedSession = Session.extend({ projectID: z.string(), version: z.string() }).meta({
  id: 'OpenCodeSession',
});
export type ServedSession = z.infer<typeof ServedSession>;

export function servedSession(session: SessionRecord): ServedSession {
  return { ...session, projectID: projectOf(session), version: LOOM_VERSION };
}
