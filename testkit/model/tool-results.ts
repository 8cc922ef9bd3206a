// What a session's tool calls did: as the store holds it, and as the model was shown it.
import type { SessionStore } from '../../activities/store/store.js';
import type { ToolPart } from '../../core/records/part.js';
import type { RecordedRequest } from './scripted-model-script.js';

/** The tool parts of a session's stored messages, in order. */
export async function toolParts(store: Pick<SessionStore, 'messages'>, sessionId: string): Promise<ToolPart[]> {
  return (await store.messages(sessionId))
    .flatMap((message) => message.parts)
    .filter((part): part is ToolPart => part.type === 'tool');
}

/** The last tool result a recorded model request carried ('' when it carried none). */
export function lastToolOutput(request: RecordedRequest): string {
  return String(request.messages.findLast((message) => message.role === 'tool')?.content ?? '');
}
