import type { ToolState } from '../../core/part.js';
import type { SessionStore } from '../store/store.js';

/**
 * Moves a tool call's part to a new state. `tool` renames the call when the workflow repaired the
 * model's spelling (`Read` → `read`).
 */
export async function setToolState(store: SessionStore, partId: string, state: ToolState, tool?: string): Promise<void> {
  await store.updatePart(partId, (part) => (part.type === 'tool' ? { ...part, tool: tool ?? part.tool, state } : part));
}
