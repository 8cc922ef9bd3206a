import { z } from 'zod';
import { Part } from './part.js';
import type { Tokens as TokenCounts } from './tokens.js';

export { addTokens, zeroTokens } from './tokens.js';

export const Tokens: z.ZodType<TokenCounts> = z.object({
  input: z.number(),
  output: z.number(),
  reasoning: z.number(),
  cache: z.object({ read: z.number(), write: z.number() }),
});
export type Tokens = TokenCounts;

/** Why a message ended badly. `name` is a stable type (`ModelAuthError`, `MessageAbortedError`, …). */
export const MessageError = z.object({
  name: z.string(),
  message: z.string(),
  retryable: z.boolean().optional(),
  statusCode: z.number().optional(),
});
export type MessageError = z.infer<typeof MessageError>;

const MessageBase = z.object({
  id: z.string(),
  sessionID: z.string(),
  agent: z.string(),
  model: z.string(),
});

export const UserMessage = MessageBase.extend({
  role: z.literal('user'),
  time: z.object({ created: z.number() }),
  /** The stored prompt it was written from (absent for Loom's own prompts and older messages). */
  promptID: z.string().optional(),
});
export type UserMessage = z.infer<typeof UserMessage>;

export const AssistantMessage = MessageBase.extend({
  role: z.literal('assistant'),
  /** The user message this answers. */
  parentID: z.string(),
  /** The loop step (1-based) within its run. */
  step: z.number(),
  time: z.object({ created: z.number(), completed: z.number().optional() }),
  /** The model's finish reason: `stop`, `tool-calls`, `length`, … */
  finish: z.string().optional(),
  error: MessageError.optional(),
  /** A compaction's summary of the conversation so far. */
  summary: z.boolean().optional(),
  tokens: Tokens,
  cost: z.number(),
});
export type AssistantMessage = z.infer<typeof AssistantMessage>;

export const Message = z.discriminatedUnion('role', [UserMessage, AssistantMessage]);
export type Message = z.infer<typeof Message>;

export const MessageWithParts = z.object({ info: Message, parts: z.array(Part) });
export type MessageWithParts = z.infer<typeof MessageWithParts>;
