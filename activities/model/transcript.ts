import type { SharedV3ProviderOptions as ProviderOptions } from '@ai-sdk/provider';
import type { AssistantContent, FilePart, ModelMessage, ToolResultPart, UserContent } from 'ai';
import { CLEARED_TOOL_OUTPUT, COMPACTION_REQUEST_TEXT, isCleared } from '../../core/models/compaction.js';
import type { MessageWithParts } from '../../core/records/message.js';
import type { ToolPart } from '../../core/records/part.js';

export const INTERRUPTED_TOOL_OUTPUT = '[Tool execution was interrupted]';

export interface TranscriptOptions {
  /** Replace files by a short marker (`[Attached image/png: logo.png]`), for a compaction. */
  stripMedia?: boolean;
  /** Cut each tool output to this many characters, for a compaction. */
  toolOutputLimit?: number;
  /**
   * Send back what this provider attached to its own answers (thinking signatures), which
   * Anthropic and Gemini require with the parts they belong to; another provider's are left out.
   */
  metadataOf?: string;
}

/**
 * The conversation as the model sees it, built from the store. Tool parts become a tool call in
 * the assistant message and a result in the tool message after it; a call that never finished is
 * shown as interrupted, so every call has a result, and a pruned output as cleared. Files a tool
 * produced (an image `read` opened) follow in a user message, since tool results can only hold
 * text on chat-completions servers. A compaction request reads "What did we do so far?".
 */
export function toModelMessages(history: MessageWithParts[], options: TranscriptOptions = {}): ModelMessage[] {
  const messages: ModelMessage[] = [];
  const marker = (file: { mime: string; filename?: string }) => `[Attached ${file.mime}: ${file.filename ?? 'file'}]`;
  for (const { info, parts } of history) {
    if (info.role === 'user') {
      const content: UserContent = [];
      for (const part of parts) {
        if (part.type === 'text') content.push({ type: 'text', text: part.text });
        if (part.type === 'subtask')
          content.push({ type: 'text', text: 'The following tool was executed by the user' });
        if (part.type === 'compaction') content.push({ type: 'text', text: COMPACTION_REQUEST_TEXT });
        if (part.type === 'file') {
          content.push(
            options.stripMedia
              ? { type: 'text', text: marker(part) }
              : { type: 'file', data: part.url, mediaType: part.mime, filename: part.filename },
          );
        }
      }
      if (content.length > 0) messages.push({ role: 'user', content });
      continue;
    }
    const content: Exclude<AssistantContent, string> = [];
    const results: ToolResultPart[] = [];
    const files: FilePart[] = [];
    const sendsMetadata = options.metadataOf !== undefined && info.model.startsWith(`${options.metadataOf}/`);
    // Stored as the provider sent it, so it is JSON.
    const providerOptions = (part: { metadata?: Record<string, unknown> }) =>
      sendsMetadata && part.metadata ? { providerOptions: part.metadata as ProviderOptions } : {};
    for (const part of parts) {
      // Loom's notes in an answer (`synthetic`) are for people, not words the model said.
      if (part.type === 'text' && part.text && !part.synthetic)
        content.push({ type: 'text', text: part.text, ...providerOptions(part) });
      // Redacted thinking has no text, only the provider's encrypted data.
      if (part.type === 'reasoning' && (part.text || (sendsMetadata && part.metadata)))
        content.push({ type: 'reasoning', text: part.text, ...providerOptions(part) });
      if (part.type === 'tool') {
        content.push({
          type: 'tool-call',
          toolCallId: part.callID,
          toolName: part.tool,
          input: part.state.input ?? {},
          ...providerOptions(part),
        });
        results.push(toolResult(part, options));
        if (part.state.status === 'completed' && !isCleared(part) && !options.stripMedia) {
          for (const file of part.state.attachments ?? [])
            files.push({ type: 'file', data: file.url, mediaType: file.mime, filename: file.filename });
        }
      }
    }
    if (content.length === 0) continue;
    messages.push({ role: 'assistant', content });
    if (results.length > 0) messages.push({ role: 'tool', content: results });
    if (files.length > 0)
      messages.push({
        role: 'user',
        content: [{ type: 'text', text: 'Files attached by the tool calls above:' }, ...files],
      });
  }
  return messages;
}

function toolResult(part: ToolPart, options: TranscriptOptions): ToolResultPart {
  const base = { type: 'tool-result' as const, toolCallId: part.callID, toolName: part.tool };
  switch (part.state.status) {
    case 'completed': {
      if (isCleared(part)) return { ...base, output: { type: 'text', value: CLEARED_TOOL_OUTPUT } };
      const limit = options.toolOutputLimit;
      const output =
        limit && part.state.output.length > limit
          ? `${part.state.output.slice(0, limit)}\n[… cut for the summary]`
          : part.state.output;
      return { ...base, output: { type: 'text', value: output } };
    }
    case 'error':
      return { ...base, output: { type: 'error-text', value: part.state.error } };
    default:
      return { ...base, output: { type: 'error-text', value: INTERRUPTED_TOOL_OUTPUT } };
  }
}
