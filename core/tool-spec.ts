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
   * `read-only` tools may be retried freely; `mutating` tools change the world and are not
   * retried blindly.
   */
  effect: 'read-only' | 'mutating';
  /** A one-line label for the activity in the Temporal UI, e.g. `read src/index.ts`. */
  summarize(input: z.infer<Params>): string;
}

export function defineTool<Params extends z.ZodType>(spec: ToolSpec<Params>): ToolSpec<Params> {
  return spec;
}
