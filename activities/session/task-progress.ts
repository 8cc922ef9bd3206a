import type { Part } from '../../core/records/part.js';
import { describeToolCall } from '../../core/tool-call/description.js';
import type { MessageRecords } from '../store/messages.js';
import type { PartRecords } from '../store/parts.js';
import type { SessionRecords } from '../store/sessions.js';

/** One tool call of a subagent, as its parent's `task` part lists it. */
export interface TaskStep {
  id: string;
  tool: string;
  status: string;
  title?: string;
  /** `read notes.md`: the call as the CLI describes it (see `describeToolCall`). */
  description?: string;
}

/** The tool calls of a session so far, in order. */
export async function taskSteps(store: MessageRecords, sessionId: string): Promise<TaskStep[]> {
  const parts = (await store.messages(sessionId)).flatMap((message) => message.parts);
  return parts
    .filter((part): part is Extract<Part, { type: 'tool' }> => part.type === 'tool')
    .map((part) => ({
      id: part.id,
      tool: part.tool,
      status: part.state.status,
      title: part.state.status === 'completed' ? part.state.title : undefined,
      description: describeToolCall(part.tool, part.state.input),
    }));
}

/**
 * Keeps a running `task` part's `metadata.summary` current with its subagent's tool calls, so the
 * parent's view shows the child's progress as it happens: one entry per call, updated in place.
 */
export async function reportStep(
  store: PartRecords & SessionRecords,
  sessionId: string,
  step: TaskStep,
): Promise<void> {
  const session = await store.getSession(sessionId);
  if (!session?.parentPartID) return;
  await store
    .updatePart(session.parentPartID, (part) => {
      if (part.type !== 'tool' || part.state.status !== 'running') return part;
      const summary = ((part.state.metadata?.summary as TaskStep[] | undefined) ?? []).filter(
        (entry) => entry.id !== step.id,
      );
      summary.push(step);
      summary.sort((a, b) => a.id.localeCompare(b.id));
      return { ...part, state: { ...part.state, metadata: { ...part.state.metadata, summary } } };
    })
    .catch(() => undefined); // Progress is best effort; the final summary is written when the task ends.
}
