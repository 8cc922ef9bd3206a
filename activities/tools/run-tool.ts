import { Context } from '@temporalio/activity';
import { TOOL_PREVIEW_LIMIT, type ToolRunInput, type ToolRunResult } from '../../core/tool-run.js';
import type { ActivityDeps } from '../deps.js';
import { toolHandlers } from './index.js';
import { setToolState } from './tool-state.js';

const HEARTBEAT_EVERY_MS = 1_000;

export function createToolActivities({ store }: ActivityDeps) {
  /**
   * Runs one tool call and writes its result into the call's part: `running` while it works,
   * then `completed` with the output or `error` with a message the model can act on.
   */
  async function runTool(input: ToolRunInput): Promise<ToolRunResult> {
    const context = Context.current();
    const start = Date.now();
    await setToolState(store, input.partId, { status: 'running', input: input.input, time: { start } }, input.tool);
    const heartbeat = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
    try {
      const handler = toolHandlers[input.tool];
      if (!handler) throw new Error(`No handler for tool "${input.tool}" on this worker`);
      const output = await handler(input.input as never, {
        directory: input.directory,
        sessionId: input.sessionId,
        messageId: input.messageId,
        callId: input.callId,
        abort: context.cancellationSignal,
      });
      await setToolState(store, input.partId, {
        status: 'completed',
        input: input.input,
        output: output.output,
        title: output.title,
        metadata: output.metadata ?? {},
        time: { start, end: Date.now() },
      });
      return { status: 'completed', title: output.title, preview: output.output.slice(0, TOOL_PREVIEW_LIMIT) };
    } catch (error) {
      if (context.cancellationSignal.aborted) throw context.cancellationSignal.reason;
      const message = error instanceof Error ? error.message : String(error);
      await setToolState(store, input.partId, { status: 'error', input: input.input, error: message, time: { start, end: Date.now() } });
      return { status: 'error', title: input.tool, preview: message.slice(0, TOOL_PREVIEW_LIMIT) };
    } finally {
      clearInterval(heartbeat);
    }
  }

  return { runTool };
}
