import { z } from '@hono/zod-openapi';
import { MessageWithParts as CoreMessageWithParts, Tokens } from '../../core/message.js';
import { Session as CoreSession } from '../../core/session.js';

// The core schemas are the one source of the shapes; here they only get component names. `.meta`,
// not `.openapi`: they may be built before @hono/zod-openapi adds `.openapi` to zod's schemas.
export const Session = CoreSession.meta({ id: 'Session' });
export const MessageWithParts = CoreMessageWithParts.meta({ id: 'MessageWithParts' });

export const SessionIdParam = z.object({ id: z.string().openapi({ param: { name: 'id', in: 'path' }, example: 'ses_…' }) });

export const Usage = z.object({ tokens: Tokens, cost: z.number() }).openapi('Usage');

export interface SessionNodeShape {
  session: z.infer<typeof Session>;
  own: z.infer<typeof Usage>;
  tree: z.infer<typeof Usage>;
  children: SessionNodeShape[];
}

/** A session with its subagents' sessions: `own` is its usage, `tree` its subtree's. */
export const SessionNode: z.ZodType<SessionNodeShape> = z
  .object({
    session: Session,
    own: Usage,
    tree: Usage,
    get children(): z.ZodArray<z.ZodType<SessionNodeShape>> {
      return z.array(SessionNode);
    },
  })
  .openapi('SessionNode');

export const StartBody = z
  .object({
    prompt: z.string().min(1),
    agent: z.string().optional(),
    model: z.string().optional().openapi({ example: 'openai/gpt-4.1' }),
    directory: z.string().optional().openapi({ description: "the project directory on the server's machine (default: where `loom serve` runs)" }),
    title: z.string().optional(),
  })
  .openapi('StartSession');

export const PromptBody = z
  .object({ prompt: z.string().min(1), agent: z.string().optional(), model: z.string().optional() })
  .openapi('PromptSession');

export const Started = z.object({ id: z.string() }).openapi('Started');

/** A JSON response of a route. */
export const json = <T extends z.ZodType>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
