/** One tool call for a tool activity: the validated input and where to write the result. */
export interface ToolRunInput {
  sessionId: string;
  messageId: string;
  partId: string;
  callId: string;
  tool: string;
  input: Record<string, unknown>;
  directory: string;
}

/** The output itself is in the store; the workflow gets a status and a short preview. */
export interface ToolRunResult {
  status: 'completed' | 'error';
  title: string;
  preview: string;
}

export const TOOL_PREVIEW_LIMIT = 200;
