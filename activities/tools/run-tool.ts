import { Context } from '@temporalio/activity';
import { TOOL_PREVIEW_LIMIT, type ToolRunInput, type ToolRunResult } from '../../core/tool-run.js';
import type { ActivityDeps } from '../deps.js';
import { toolHandlers } from './index.js';

const HEARTBEAT_EVERY_MS = 1_000;

export function createToolActivities({ store }: ActivityDeps) {
  /**
   * Runs one tool call and writes its result into the call's part: `running` while it works,
   * then `completed` with the output or `error` with a message the model can act on.
   */
  async function runTool(input: ToolRunInput): Promise<ToolRunResult> {
    const context = Context.current();
    const start = Date.now();
    await store.updatePart(input.partId, (part) =>
      // `tool` may have been repaired from the model's spelling (`Read` → `read`).
      part.type === 'tool' ? { ...part, tool: input.tool, state: { status: 'running', input: input.input, time: { start } } } : part,
    );
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
      const metadata = output.metadata ?? {};
      await store.updatePart(input.partId, (part) =>
        part.type === 'tool'
          ? {
              ...part,
              state: {
                status: 'completed',
                input: input.input,
                output: output.output,
                title: output.title,
                metadata,
                time: { start, end: Date.now() },
              },
            }
          : part,
      );
      return { status: 'completed', title: output.title, preview: output.output.slice(0, TOOL_PREVIEW_LIMIT) };
    } catch (error) {
      if (context.cancellationSignal.aborted) throw context.cancellationSignal.reason;
      const message = error instanceof Error ? error.message : String(error);
      await store.updatePart(input.partId, (part) =>
        part.type === 'tool'
          ? { ...part, state: { status: 'error', input: input.input, error: message, time: { start, end: Date.now() } } }
          : part,
      );
      return { status: 'error', title: input.tool, preview: message.slice(0, TOOL_PREVIEW_LIMIT) };
    } finally {
      clearInterval(heartbeat);
    }
  }

  return { runTool };
}
