import type { SearchBackend } from './backend.js';
import { WalkBudgetExceeded, walkingBackend } from './js-backend.js';

/** Entries a walk in Node may visit before the search goes to ripgrep instead. */
export const NODE_WALK_BUDGET = 2_000;

/**
 * Walks small trees in Node and hands bigger ones to ripgrep. Starting ripgrep blocks the worker's
 * event loop for ~7 ms (spawning copies the worker's memory map), longer than walking a couple of
 * thousand entries takes, and every workflow on the worker waits meanwhile. Both backends match
 * with picomatch and honour the same ignore files, so the results do not depend on the choice.
 */
export function smallTreesInNode(ripgrep: SearchBackend, budget = NODE_WALK_BUDGET): SearchBackend {
  const node = walkingBackend(budget);
  const fallBack = <T>(walk: () => Promise<T>, search: () => Promise<T>) =>
    walk().catch((error: unknown) => {
      if (error instanceof WalkBudgetExceeded) return search();
      throw error;
    });
  return {
    name: 'ripgrep',
    listFiles: (root, options) =>
      fallBack(
        () => node.listFiles(root, options),
        () => ripgrep.listFiles(root, options),
      ),
    searchContent: (root, options) =>
      fallBack(
        () => node.searchContent(root, options),
        () => ripgrep.searchContent(root, options),
      ),
  };
}
