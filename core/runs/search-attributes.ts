import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

/** Loom's search attributes. `temporal-dev.sh` registers the same names (a test checks). */
export const AgentAttribute = defineSearchAttributeKey('LoomAgent', SearchAttributeType.KEYWORD);
export const RootSessionAttribute = defineSearchAttributeKey('LoomRootSession', SearchAttributeType.KEYWORD);
export const ParentSessionAttribute = defineSearchAttributeKey('LoomParentSession', SearchAttributeType.KEYWORD);
/** True while a run waits for a human (a permission `ask`). */
export const WaitingAttribute = defineSearchAttributeKey('LoomWaiting', SearchAttributeType.BOOL);

export const loomSearchAttributes = [AgentAttribute, RootSessionAttribute, ParentSessionAttribute, WaitingAttribute];

/**
 * A run's search attributes, as options of its start: none when `searchAttributes` is `false`, the
 * namespace lacking Loom's (the server would refuse the start).
 */
export function withSearchAttributes(
  searchAttributes: boolean | undefined,
  pairs: SearchAttributePair[],
): { typedSearchAttributes?: SearchAttributePair[] } {
  return searchAttributes === false ? {} : { typedSearchAttributes: pairs };
}
