import type { ToolPart, ToolState } from '../../../core/records/part.js';
import type { PartRecords } from '../../store/parts.js';

/**
 * Moves a tool call's part to a new state. `tool` renames the call when the workflow repaired the
 * model's spelling (`Read` → `read`).
 */
export async function setToolState(store: PartRecords, partId: string, state: ToolState, tool?: string): Promise<void> {
  await store.updatePart(partId, (part) => (part.type === 'tool' ? { ...part, tool: tool ?? part.tool, state } : part));
}

/** A call that could not run (unknown tool, invalid arguments, infrastructure failure): its error. */
export async function failToolPart(store: PartRecords, partId: string, error: string, now = Date.now()): Promise<void> {
  await store.updatePart(partId, (part) => (part.type === 'tool' ? failedToolPart(part, error, now) : part));
}

export function failedToolPart(part: ToolPart, error: string, now: number): ToolPart {
  const start = part.state.status === 'running' ? part.state.time.start : now;
  return { ...part, state: { status: 'error', input: part.state.input, error, time: { start, end: now } } };
}

/** The input the model gave a tool call, as its part holds it. */
export async function toolInputOf(store: PartRecords, partId: string): Promise<Record<string, unknown>> {
  const part = await store.getPart(partId);
  if (part?.type !== 'tool') throw new Error(`Tool call ${partId} is not in the session store`);
  return part.state.input as Record<string, unknown>;
}
