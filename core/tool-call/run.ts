import type { Ruleset } from '../rules/permission.js';

/** One tool call for a tool activity: which call, and where to write the result. */
export interface ToolRunInput {
  sessionId: string;
  messageId: string;
  partId: string;
  callId: string;
  tool: string;
  /** A call of an MCP server's tool: the server (from the project's `mcp` config) and the tool's own name. */
  mcp?: { server: string; tool: string };
  directory: string;
  /** The run's model: tools adapt to what it accepts (images, PDFs). */
  model: string;
  /** Whether the agent may delegate with `task` (the hint for a cut output says so). */
  canDelegate: boolean;
  /** Paths outside the project were granted for this call (`external_directory`). */
  externalAllowed?: boolean;
  /** For bash: what those grants open for writing in its sandbox (core/rules/folder-grant.ts). */
  writable?: string[];
  /** A fetch of a local-network address was allowed for this call (`webfetch`). */
  localNetworkAllowed?: boolean;
  /** For searches: the rules on reading files; lines of files they do not allow are left out. */
  readRules?: Ruleset;
  /** For bash: the agent whose call it is (its `sandbox` settings apply). */
  agent?: string;
  /**
   * The configuration the run started with (`RunConfig.workspaceConfigId`): a tool works with it,
   * not with what the project's files say now. Absent from runs of Loom 0.3.0 and before.
   */
  workspaceConfigId?: string;
}

/** The output itself is in the store; the workflow gets a status and a short preview. */
export interface ToolRunResult {
  status: 'completed' | 'error';
  title: string;
  preview: string;
}

export const TOOL_PREVIEW_LIMIT = 200;
