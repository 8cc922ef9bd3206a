/**
 * Loom's own metrics, next to Temporal's in a worker's Prometheus metrics (counters get `_total`
 * there). Counted in activities (activities/telemetry/metrics.ts) and, for `task` calls, which are
 * workflow code, in the workflow (not during replay).
 */
export const METRIC = {
  steps: 'loom_agent_steps',
  tokens: 'loom_tokens',
  /** A histogram: its `_sum` is the dollars spent, its `_count` the priced calls. */
  cost: 'loom_model_cost_usd',
  toolCalls: 'loom_tool_calls',
} as const;

/** Buckets for the cost of one model call, in dollars. */
export const COST_BUCKETS = [0.0001, 0.001, 0.01, 0.05, 0.1, 0.5, 1, 5];

export const TOOL_CALLS_DESCRIPTION = 'Tool calls, by tool and outcome';
