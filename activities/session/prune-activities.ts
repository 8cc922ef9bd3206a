import { outputsToPrune } from '../../core/models/compaction.js';
import type { ActivityDeps } from '../deps.js';

export function createPruneActivities({ store }: ActivityDeps) {
  /** Clears old tool outputs for the model (OpenCode's prune); the store keeps them. Returns how many. */
  async function pruneSession(input: { sessionId: string }): Promise<number> {
    const prune = outputsToPrune(await store.messages(input.sessionId, await store.compactionStart(input.sessionId)));
    const now = Date.now();
    for (const id of prune) {
      await store.updatePart(id, (part) =>
        part.type === 'tool' && part.state.status === 'completed'
          ? { ...part, state: { ...part.state, time: { ...part.state.time, compacted: now } } }
          : part,
      );
    }
    return prune.length;
  }

  return { pruneSession };
}
