import type { Part } from '../../core/records/part.js';
import { describeToolCall } from '../../core/tool-call/description.js';

/**
 * A part as the server sends it: a tool call carries `description`, `read notes.md`, the words the
 * CLI prints for it (`describeToolCall`). The web view shows that, since it cannot load the tools' specs.
 */
export function describedPart(part: Part): Part & { description?: string } {
  return part.type === 'tool' ? { ...part, description: describeToolCall(part.tool, part.state.input) } : part;
}

export function describedMessages<M extends { parts: Part[] }>(messages: M[]): M[] {
  return messages.map((message) => ({ ...message, parts: message.parts.map(describedPart) }));
}
