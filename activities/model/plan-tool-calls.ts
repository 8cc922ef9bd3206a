import { createHash } from 'node:crypto';
import { wildcardMatch, type Ruleset } from '../../core/rules/permission.js';
import type { FindTool, ToolCall } from '../../core/tool-call/check.js';
import { planToolCall, refuseOversized, type PlannedToolCall, type ToolCallCheck } from '../../core/tool-call/plan.js';
import type { CheckContext } from '../permissions/check-context.js';
import { permissionsOf } from '../permissions/index.js';
import type { PartRecords } from '../store/parts.js';
import { failToolPart } from '../tools/running/tool-state.js';

/**
 * Checks the calls of a model answer and plans them for the loop. A call the model got wrong is
 * answered here, in its part, with the error it will see next step; the loop skips it.
 */
export async function planToolCalls(
  store: PartRecords,
  calls: ToolCall[],
  context: {
    offered: readonly string[];
    agentRules: Ruleset;
    directory: string;
    globalConfigDir?: string;
    /** What the sandbox refused earlier bash calls of the session, by command line. */
    sandboxRefusals?: ReadonlyMap<string, string>;
    find?: FindTool;
  },
): Promise<PlannedToolCall[]> {
  const plans: PlannedToolCall[] = [];
  const checkContext = {
    directory: context.directory,
    ...(context.globalConfigDir ? { globalConfigDir: context.globalConfigDir } : {}),
    readRules: context.agentRules.filter((rule) => wildcardMatch('read', rule.permission)),
    ...(context.sandboxRefusals ? { sandboxRefusals: context.sandboxRefusals } : {}),
  };
  for (const call of calls) {
    const check = refuseOversized(
      await checkedWhereItLeads(planToolCall(call, { ...context, digest: digestOf }), checkContext),
    );
    if (!check.ok) await failToolPart(store, call.partId, check.error);
    plans.push(check.plan);
  }
  return plans;
}

/** The call's permissions as what it would really touch (links resolved, shell lines parsed). */
async function checkedWhereItLeads(check: ToolCallCheck, context: CheckContext): Promise<ToolCallCheck> {
  if (!check.ok) return check;
  const permissions = await permissionsOf(check.plan.tool, check.input, check.plan.permissions, context);
  return { ...check, plan: { ...check.plan, permissions } };
}

function digestOf(input: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(input)).digest('hex').slice(0, 24);
}
