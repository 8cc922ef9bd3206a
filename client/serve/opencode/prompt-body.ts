import { z } from '@hono/zod-openapi';
import { HttpError } from '../errors.js';

/** OpenCode's model reference; Loom names a model `provider/model`. */
export const ModelRef = z
  .object({ providerID: z.string().min(1), modelID: z.string().min(1) })
  .openapi('ModelRef', { description: 'OpenCode\'s form of "provider/model"' });

const PartInput = z
  .looseObject({
    type: z.string().openapi({ description: 'only `text` parts are taken' }),
    text: z.string().optional(),
    ignored: z.boolean().optional().openapi({ description: 'a text part left out of the prompt' }),
  })
  .openapi('PartInput');

/** The fields of OpenCode's prompt body (`session.prompt`, `session.promptAsync`). */
export const openCodePromptFields = {
  parts: z.array(PartInput).min(1).openapi({ description: 'the prompt: `text` parts, joined by blank lines' }),
  agent: z.string().optional(),
  messageID: z.string().optional().openapi({ description: 'not supported: Loom names its messages (400)' }),
  noReply: z.boolean().optional().openapi({ description: 'not supported when true (400)' }),
  system: z.string().optional().openapi({ description: "not supported (400): the agent's prompt is its system" }),
  tools: z
    .record(z.string(), z.boolean())
    .optional()
    .openapi({ description: "not supported (400): an agent's tools come from its permission rules" }),
};

export const OpenCodePromptBody = z
  .object({ ...openCodePromptFields, model: ModelRef.optional() })
  .openapi('OpenCodePrompt');
export type OpenCodePromptBody = z.infer<typeof OpenCodePromptBody>;

/** `provider/model` from either form. */
export function modelName(model: string | z.infer<typeof ModelRef> | undefined): string | undefined {
  return typeof model === 'object' ? `${model.providerID}/${model.modelID}` : model;
}

/**
 * A 400 naming the field of OpenCode's prompt body Loom cannot honour: the turn always runs the
 * agent with its own system prompt and tools, and Loom names the messages it stores.
 */
export function refuseUnsupported(
  session: string,
  body: Pick<OpenCodePromptBody, 'messageID' | 'noReply' | 'system' | 'tools'>,
): void {
  const refuse = (what: string) => new HttpError(400, `Session ${session}: ${what}`);
  if (body.messageID !== undefined) throw refuse('messageID is not supported: Loom names the messages it stores.');
  if (body.noReply) throw refuse('noReply is not supported: every prompt runs a turn of the agent.');
  if (body.system !== undefined)
    throw refuse("system is not supported: the agent's own prompt is the system prompt (define an agent for another).");
  if (body.tools && Object.keys(body.tools).length > 0)
    throw refuse('tools is not supported: an agent\'s tools follow its permission rules ("permission" in the config).');
}

/** The prompt text of an OpenCode body (its text parts), or a 400 naming the part or field Loom cannot take. */
export function promptText(session: string, body: Omit<OpenCodePromptBody, 'model'>): string {
  refuseUnsupported(session, body);
  const refuse = (what: string) => new HttpError(400, `Session ${session}: ${what}`);
  const texts: string[] = [];
  for (const [index, part] of body.parts.entries()) {
    if (part.type !== 'text')
      throw refuse(
        `parts[${index}] is a "${part.type}" part; Loom takes text parts only (name a file's path in the text and the agent reads it).`,
      );
    if (typeof part.text !== 'string') throw refuse(`parts[${index}] is a text part without "text".`);
    if (!part.ignored) texts.push(part.text);
  }
  const text = texts.join('\n\n');
  if (!text.trim()) throw refuse('the prompt is empty: send a text part with some text.');
  return text;
}
