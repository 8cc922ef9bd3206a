import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/** Loom's search attributes. `temporal-dev.sh` registers the same names (a test checks). */
export const AgentAttribute = defineSearchAttributeKey('LoomAgent', SearchAttributeType.KEYWORD);
export const RootSessionAttribute = defineSearchAttributeKey('LoomRootSession', SearchAttributeType.KEYWORD);
export const ParentSessionAttribute = defineSearchAttributeKey('LoomParentSession', SearchAttributeType.KEYWORD);
/** True while a run waits for a human (a permission `ask`). */
export const WaitingAttribute = defineSearchAttributeKey('LoomWaiting', SearchAttributeType.BOOL);

export const loomSearchAttributes = [AgentAttribute, RootSessionAttribute, ParentSessionAttribute, WaitingAttribute];
