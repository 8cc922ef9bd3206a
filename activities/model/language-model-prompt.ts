import type {
  LanguageModelV3DataContent,
  LanguageModelV3FilePart,
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultPart,
} from '@ai-sdk/provider';
import type { FilePart, ModelMessage, ToolResultPart } from 'ai';

/**
 * The transcript in the provider's own terms: what the AI SDK's `streamText` hands the model, made
 * without the SDK's zod validation of every message on every call. That validation was most of a
 * step's CPU and grew with the session; Loom builds these messages itself from its store, so they
 * are well-formed by construction. The mapping is the SDK's (empty text parts dropped, files from
 * data URLs split into base64 and media type, consecutive tool messages merged), so the request a
 * provider sends is byte for byte what it sent through `streamText` (test/activities/model-request-bytes).
 *
 * Loom stores files as data URLs only; any other URL is passed on as a URL, not downloaded.
 */
export function toLanguageModelPrompt(system: string, messages: ModelMessage[]): LanguageModelV3Prompt {
  const prompt: LanguageModelV3Prompt = [{ role: 'system', content: system }];
  for (const message of messages) {
    const converted = convertMessage(message);
    const previous = prompt.at(-1);
    if (converted.role === 'tool' && previous?.role === 'tool') {
      previous.content.push(...converted.content);
      previous.providerOptions = converted.providerOptions;
    } else {
      prompt.push(converted);
    }
  }
  return prompt;
}

function convertMessage(message: ModelMessage): LanguageModelV3Message {
  const { providerOptions } = message;
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content, providerOptions };
    case 'user': {
      if (typeof message.content === 'string')
        return { role: 'user', content: [{ type: 'text', text: message.content }], providerOptions };
      const content: Extract<LanguageModelV3Message, { role: 'user' }>['content'] = [];
      for (const part of message.content) {
        if (part.type === 'text') {
          if (part.text !== '') content.push({ type: 'text', text: part.text, providerOptions: part.providerOptions });
        } else if (part.type === 'file') {
          content.push(filePart(part));
        } else {
          throw new Error(`Loom does not send ${part.type} parts in a user message`);
        }
      }
      return { role: 'user', content, providerOptions };
    }
    case 'assistant': {
      if (typeof message.content === 'string')
        return { role: 'assistant', content: [{ type: 'text', text: message.content }], providerOptions };
      const content: Extract<LanguageModelV3Message, { role: 'assistant' }>['content'] = [];
      for (const part of message.content) {
        if (part.type === 'tool-approval-request') continue;
        const options = part.providerOptions;
        switch (part.type) {
          case 'text':
            if (part.text !== '' || options) content.push({ type: 'text', text: part.text, providerOptions: options });
            break;
          case 'reasoning':
            content.push({ type: 'reasoning', text: part.text, providerOptions: options });
            break;
          case 'file':
            content.push(filePart(part));
            break;
          case 'tool-call':
            content.push({
              type: 'tool-call',
              toolCallId: part.toolCallId,
              toolName: part.toolName,
              input: part.input,
              providerExecuted: part.providerExecuted,
              providerOptions: options,
            });
            break;
          case 'tool-result':
            content.push(toolResult(part));
            break;
        }
      }
      return { role: 'assistant', content, providerOptions };
    }
    case 'tool': {
      const content: LanguageModelV3ToolResultPart[] = [];
      for (const part of message.content) {
        if (part.type !== 'tool-result') throw new Error(`Loom does not send ${part.type} parts in a tool message`);
        content.push(toolResult(part));
      }
      return { role: 'tool', content, providerOptions };
    }
  }
}

function toolResult(part: ToolResultPart): LanguageModelV3ToolResultPart {
  return {
    type: 'tool-result',
    toolCallId: part.toolCallId,
    toolName: part.toolName,
    output: part.output as LanguageModelV3ToolResultPart['output'],
    providerOptions: part.providerOptions,
  };
}

function filePart(part: FilePart): LanguageModelV3FilePart {
  const { data, mediaType } = fileData(part.data);
  return {
    type: 'file',
    data,
    filename: part.filename,
    mediaType: mediaType ?? part.mediaType,
    providerOptions: part.providerOptions,
  };
}

/** A data URL becomes its base64 content and media type; another URL stays a URL; bytes stay bytes. */
function fileData(data: FilePart['data']): { data: LanguageModelV3DataContent; mediaType?: string } {
  if (typeof data === 'string') {
    if (data.startsWith('data:')) {
      const [header, base64] = data.split(',');
      const mediaType = header.split(';')[0].split(':')[1];
      if (!mediaType || base64 === undefined) throw new Error(`Invalid data URL in a file part: ${data.slice(0, 60)}`);
      return { data: base64, mediaType };
    }
    return { data: URL.canParse(data) ? new URL(data) : data };
  }
  if (data instanceof URL) return { data };
  if (data instanceof ArrayBuffer) return { data: new Uint8Array(data) };
  return { data: data as Uint8Array };
}
