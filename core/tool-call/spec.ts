import type { z } from 'zod';
import type { PermissionRequest } from '../rules/permission.js';

/** What a tool needs to name the permissions of a call. */
export interface PermissionContext {
  /** The project directory (absolute). */
  directory: string;
  /** The user's global config folder: writing there changes what configures Loom. */
  globalConfigDir?: string;
}

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
  /**
   * The tool only touches local files or the store and finishes in milliseconds: it runs as a
   * local activity, in the worker that runs the workflow, since a round trip through the server
   * would cost more than the work.
   */
  local?: boolean;
  /** The tool touches only the session store, not the workspace: it runs on any worker, not on the workspace's host. */
  storeOnly?: boolean;
  /** A tool of an MCP server (offered as `<server>_<tool>`): its calls go to that server. */
  mcp?: { server: string; tool: string };
  /** The parameters' JSON Schema to offer as it is (an MCP tool's, from its server). */
  inputSchema?: Record<string, unknown>;
  /** What the call is about, for labels: `src/index.ts` (shown as `read · src/index.ts`). */
  summarize(input: z.infer<Params>): string;
  /**
   * The permissions a call needs, with the patterns rules are matched against (the path for
   * read, the command for bash, …). Without it: the tool's own permission with pattern `*`.
   */
  permissions?(input: z.infer<Params>, context: PermissionContext): PermissionRequest[];
}

/** A tool spec as written: its parameters' schema is made by a function, on first use. */
export type ToolDefinition<Params extends z.ZodType> = Omit<ToolSpec<Params>, 'parameters'> & {
  parameters: () => Params;
};

/**
 * A tool's spec, its parameters' schema built when first asked for. Every workflow loads every
 * spec (for names, labels and permissions) and the workflow sandbox loads modules afresh for each
 * workflow, so building all the schemas up front cost each workflow, subagent and batch task
 * milliseconds for schemas it mostly never uses.
 */
export function defineTool<Params extends z.ZodType>(definition: ToolDefinition<Params>): ToolSpec<Params> {
  const { parameters: build, ...spec } = definition;
  let parameters: Params | undefined;
  return Object.defineProperty(spec, 'parameters', {
    get: () => (parameters ??= build()),
    enumerable: true,
  }) as ToolSpec<Params>;
}
