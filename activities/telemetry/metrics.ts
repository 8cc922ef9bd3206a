import { Context } from '@temporalio/activity';
import type { MetricMeter } from '@temporalio/common';
import { METRIC, TOOL_CALLS_DESCRIPTION } from '../../core/runs/metric-names.js';
import type { Tokens } from '../../core/records/tokens.js';

// Loom's counters go through the activity's meter (`loom worker
// --metrics-port`), which goes nowhere when metrics are off.

/** An answered model call: one agent step, its tokens by kind, and its price. */
export function countModelCall(call: { model: string; agent: string; tokens: Tokens; cost: number }): void {
  const meter = activityMeter();
  if (!meter) return;
  const slash = call.model.indexOf('/');
  const labels = { provider: call.model.slice(0, slash), model: call.model.slice(slash + 1) };
  meter
    .createCounter(METRIC.steps, 'steps', 'Model calls answered (agent steps), by provider, model and agent')
    .add(1, { ...labels, agent: call.agent });
  const tokens = meter.createCounter(
    METRIC.tokens,
    'tokens',
    'Tokens of answered model calls, by provider, model and kind',
  );
  const kinds = {
    input: call.tokens.input,
    output: call.tokens.output,
    reasoning: call.tokens.reasoning,
    cache_read: call.tokens.cache.read,
    cache_write: call.tokens.cache.write,
  };
  for (const [kind, count] of Object.entries(kinds)) if (count > 0) tokens.add(count, { ...labels, kind });
  meter
    .createHistogram(
      METRIC.cost,
      'float',
      'usd',
      'Price of each model call in dollars (the sum is the spend), by provider and model',
    )
    .record(call.cost, labels);
}

/** A tool call that ended: `completed`, `error` or `cancelled`. */
export function countToolCall(tool: string, outcome: 'completed' | 'error' | 'cancelled'): void {
  activityMeter()?.createCounter(METRIC.toolCalls, 'calls', TOOL_CALLS_DESCRIPTION).add(1, { tool, outcome });
}

function activityMeter(): MetricMeter | undefined {
  try {
    return Context.current().metricMeter;
  } catch {
    // Not in an activity (a test calling the function directly): nothing to count into.
    return undefined;
  }
}
