import type { z } from 'zod';

/**
 * What the workflow and the model need to know about a tool: how to offer it, how to validate a
 * call, and how to label it in the Temporal UI. The handler that does the work lives in
 * `activities/tools/<name>.ts`.
 */
export interface ToolSpec<Params extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  parameters: Params;
  /**
   * How a call may be retried: `read-only` and `idempotent` tools freely; `mutating` tools change
   * the world and run at most once.
   */
  effect: 'read-only' | 'idempotent' | 'mutating';
  /** What the call is about, for labels: `src/index.ts` (shown as `read · src/index.ts`). */
  summarize(input: z.infer<Params>): string;
}

export function defineTool<Params extends z.ZodType>(spec: ToolSpec<Params>): ToolSpec<Params> {
  return spec;
}
