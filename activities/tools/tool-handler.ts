/** What a tool handler gets besides its input. */
export interface ToolContext {
  /** The project directory; relative paths resolve against it. */
  directory: string;
  sessionId: string;
  messageId: string;
  callId: string;
  /** Aborted when the run is cancelled or the activity times out. */
  abort: AbortSignal;
}

export interface ToolOutput {
  /** A short label shown with the call (e.g. the path read). */
  title: string;
  /** What the model sees. */
  output: string;
  metadata?: Record<string, unknown>;
}

export type ToolHandler<Input = Record<string, unknown>> = (input: Input, context: ToolContext) => Promise<ToolOutput>;

/** A failure the model should see and can act on (missing file, bad pattern, …). */
export class ToolError extends Error {
  override name = 'ToolError';
}
