import type { AssistantContent, FilePart, ModelMessage, ToolResultPart, UserContent } from 'ai';
import type { MessageWithParts } from '../../core/message.js';
import type { ToolPart } from '../../core/part.js';

export const INTERRUPTED_TOOL_OUTPUT = '[Tool execution was interrupted]';

/**
 * The conversation as the model sees it, built from the store. Tool parts become a tool call in
 * the assistant message and a result in the tool message after it; a call that never finished is
 * shown as interrupted, so every call has a result. Files a tool produced (an image `read` opened)
 * follow in a user message, since tool results can only hold text on chat-completions servers.
 */
export function toModelMessages(history: MessageWithParts[]): ModelMessage[] {
  const messages: ModelMessage[] = [];
  for (const { info, parts } of history) {
    if (info.role === 'user') {
      const content: UserContent = [];
      for (const part of parts) {
        if (part.type === 'text') content.push({ type: 'text', text: part.text });
        if (part.type === 'subtask') content.push({ type: 'text', text: 'The following tool was executed by the user' });
        if (part.type === 'file') content.push({ type: 'file', data: part.url, mediaType: part.mime, filename: part.filename });
      }
      if (content.length > 0) messages.push({ role: 'user', content });
      continue;
    }
    const content: Exclude<AssistantContent, string> = [];
    const results: ToolResultPart[] = [];
    const files: FilePart[] = [];
    for (const part of parts) {
      if (part.type === 'text' && part.text) content.push({ type: 'text', text: part.text });
      if (part.type === 'reasoning' && part.text) content.push({ type: 'reasoning', text: part.text });
      if (part.type === 'tool') {
        content.push({ type: 'tool-call', toolCallId: part.callID, toolName: part.tool, input: part.state.input ?? {} });
        results.push(toolResult(part));
        if (part.state.status === 'completed') {
          for (const file of part.state.attachments ?? []) files.push({ type: 'file', data: file.url, mediaType: file.mime, filename: file.filename });
        }
      }
    }
    if (content.length === 0) continue;
    messages.push({ role: 'assistant', content });
    if (results.length > 0) messages.push({ role: 'tool', content: results });
    if (files.length > 0) messages.push({ role: 'user', content: [{ type: 'text', text: 'Files attached by the tool calls above:' }, ...files] });
  }
  return messages;
}

function toolResult(part: ToolPart): ToolResultPart {
  const base = { type: 'tool-result' as const, toolCallId: part.callID, toolName: part.tool };
  switch (part.state.status) {
    case 'completed':
      return { ...base, output: { type: 'text', value: part.state.output } };
    case 'error':
      return { ...base, output: { type: 'error-text', value: part.state.error } };
    default:
      return { ...base, output: { type: 'error-text', value: INTERRUPTED_TOOL_OUTPUT } };
  }
}
