import { createHash } from 'node:crypto';
import type { Ruleset } from '../../core/permission.js';
import type { ToolCall } from '../../core/tool-call.js';
import { planToolCall, refuseOversized, type PlannedToolCall } from '../../core/tool-plan.js';
import type { SessionStore } from '../store/store.js';
import { failToolPart } from '../tools/tool-state.js';

/**
 * Checks the calls of a model answer and plans them for the loop. A call the model got wrong is
 * answered here, in its part, with the error it will see next step; the loop skips it.
 */
export async function planToolCalls(
  store: SessionStore,
  calls: ToolCall[],
  context: { offered: readonly string[]; agentRules: Ruleset; directory: string },
): Promise<PlannedToolCall[]> {
  const plans: PlannedToolCall[] = [];
  for (const call of calls) {
    const check = refuseOversized(planToolCall(call, { ...context, digest: digestOf }));
    if (!check.ok) await failToolPart(store, call.partId, check.error);
    plans.push(check.plan);
  }
  return plans;
}

function digestOf(input: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(input)).digest('hex').slice(0, 24);
}
