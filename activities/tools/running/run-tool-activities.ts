import { Context } from '@temporalio/activity';
import { TOOL_PREVIEW_LIMIT, type ToolRunInput, type ToolRunResult } from '../../../core/tool-call/run.js';
import type { ActivityDeps } from '../../deps.js';
import { toolOutputDir } from '../../process/paths.js';
import { toolHandlers } from '../index.js';
import { reportStep } from '../../session/task-progress.js';
import { ProgressWriter } from './progress-writer.js';
import { findTool } from '../../../core/tools/index.js';
import { describeToolCall } from '../../../core/tool-call/description.js';
import { setToolState, toolInputOf } from './tool-state.js';
import { truncateOutput } from './truncate.js';
import { afterToolCall, beforeToolCall, pluginShellEnv } from '../../plugins/hooks.js';
import { loadPlugins } from '../../plugins/load.js';
import { mcpToolHandler } from '../mcp.js';
import { countToolCall } from '../../telemetry/metrics.js';
import { inToolCallSpan } from '../../telemetry/spans.js';
import { noteWorkspace } from '../../sandbox/hidden-paths.js';
import { errorMessage } from '../../../core/text/error-message.js';
import { runConfiguration, type RunConfiguration } from '../../config/run-configuration.js';
import { noticeConfigChange } from '../../config/trust.js';
import { warnInWorkerLog } from '../../process/worker-log.js';

const HEARTBEAT_EVERY_MS = 1_000;

export function createToolActivities({ store, env, dataDir }: ActivityDeps) {
  /**
   * Runs one tool call and writes its result into the call's part: `running` while it works (with
   * progress), then `completed` with the output, cut to size, or `error` with a message the model
   * can act on.
   */
  async function runTool(input: ToolRunInput): Promise<ToolRunResult> {
    try {
      const result = await inToolCallSpan(input, () => runToolCall(input));
      countToolCall(input.tool, result.status === 'completed' ? 'completed' : 'error');
      return result;
    } catch (error) {
      countToolCall(input.tool, Context.current().cancellationSignal.aborted ? 'cancelled' : 'error');
      throw error;
    }
  }

  async function runToolCall(input: ToolRunInput): Promise<ToolRunResult> {
    const context = Context.current();
    const start = Date.now();
    noteWorkspace(input.directory);
    // The call's input, from its part (the model activity wrote it there).
    let toolInput = input.mcp ? await toolInputOf(store, input.partId) : await validInput(input.partId, input.tool);
    await setToolState(store, input.partId, { status: 'running', input: toolInput, time: { start } }, input.tool);
    const description = describeToolCall(input.tool, toolInput);
    await reportStep(store, input.sessionId, { id: input.partId, tool: input.tool, status: 'running', description });
    // Local activities have no heartbeats: the worker that runs them runs the workflow too.
    const heartbeat = context.info.isLocal ? undefined : setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
    const progress = new ProgressWriter(store, input.partId);
    try {
      const handler = input.mcp ? mcpToolHandler(input.mcp) : toolHandlers[input.tool];
      if (!handler) throw new Error(`No handler for tool "${input.tool}" on this worker`);
      const run = await runConfiguration(store, env, input);
      // Plugins run here, on the workspace's host: a plugin that fails or blocks the call is the call's error.
      const plugins = await loadPlugins(input.directory, env, run.project);
      const hookInput = { tool: input.tool, sessionID: input.sessionId, callID: input.callId };
      const args = await beforeToolCall(plugins, hookInput, toolInput);
      if (args !== toolInput) {
        toolInput = args;
        await setToolState(store, input.partId, { status: 'running', input: toolInput, time: { start } }, input.tool);
      }
      const config = run.config;
      const pluginEnv = await pluginShellEnv(plugins, input.directory);
      const ran = await handler(toolInput as never, {
        directory: input.directory,
        dataDir,
        sessionId: input.sessionId,
        messageId: input.messageId,
        callId: input.callId,
        model: input.model,
        // Plugins' `shell.env` variables are set like `shell_env` ones: after secrets are hidden.
        config:
          Object.keys(pluginEnv).length > 0 ? { ...config, shell_env: { ...config.shell_env, ...pluginEnv } } : config,
        store,
        env,
        externalAllowed: input.externalAllowed,
        ...(input.writable ? { writable: input.writable } : {}),
        localNetworkAllowed: input.localNetworkAllowed,
        readRules: input.readRules,
        ...(input.agent ? { agent: input.agent } : {}),
        ...(context.info.workflowExecution?.runId ? { runId: context.info.workflowExecution.runId } : {}),
        abort: context.cancellationSignal,
        update: (update) => progress.update(update),
      });
      await progress.stop();
      if (mayWrite(input)) await noticeChangedConfig(input, run);
      const result = await afterToolCall(plugins, { ...hookInput, args: toolInput }, ran);
      const cut =
        result.metadata?.truncated !== undefined
          ? { output: result.output, truncated: Boolean(result.metadata.truncated) }
          : await truncateOutput(result.output, {
              dir: toolOutputDir(dataDir),
              name: input.partId,
              canDelegate: input.canDelegate,
            });
      await setToolState(store, input.partId, {
        status: 'completed',
        input: toolInput,
        output: cut.output,
        title: result.title,
        metadata: {
          ...result.metadata,
          truncated: cut.truncated,
          ...(cut.outputPath ? { outputPath: cut.outputPath } : {}),
        },
        time: { start, end: Date.now() },
        ...(result.attachments?.length ? { attachments: result.attachments } : {}),
      });
      await reportStep(store, input.sessionId, {
        id: input.partId,
        tool: input.tool,
        status: 'completed',
        title: result.title,
        description,
      });
      return { status: 'completed', title: result.title, preview: cut.output.slice(0, TOOL_PREVIEW_LIMIT) };
    } catch (error) {
      await progress.stop();
      if (context.cancellationSignal.aborted) throw context.cancellationSignal.reason;
      const message = errorMessage(error);
      await setToolState(store, input.partId, {
        status: 'error',
        input: toolInput,
        error: message,
        time: { start, end: Date.now() },
      });
      await reportStep(store, input.sessionId, { id: input.partId, tool: input.tool, status: 'error', description });
      return { status: 'error', title: input.tool, preview: message.slice(0, TOOL_PREVIEW_LIMIT) };
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** The call's input from its part, as the tool's parameters read it (defaults filled in). */
  async function validInput(partId: string, tool: string): Promise<Record<string, unknown>> {
    const spec = findTool(tool);
    if (!spec) throw new Error(`No tool "${tool}" on this worker`);
    return spec.parameters.parse(await toolInputOf(store, partId)) as Record<string, unknown>;
  }

  /**
   * A call that may have changed the project's config files (a command run outside the sandbox,
   * an approved write, an MCP server) leaves the change waiting for a person: no run uses it until
   * they confirm it. Best effort: the call's own result stands whatever happens here.
   */
  async function noticeChangedConfig(input: ToolRunInput, run: RunConfiguration): Promise<void> {
    try {
      await noticeConfigChange(store, input.directory, env, { sessionId: input.sessionId, runConfigId: run.projectId });
    } catch (error) {
      warnInWorkerLog(`Could not check ${input.directory}'s config files after ${input.tool}: ${errorMessage(error)}`);
    }
  }

  return { runTool };
}

/** Whether a call may write files: Loom's tools that change things, and every MCP tool (its effect is the server's word). */
function mayWrite(input: ToolRunInput): boolean {
  return input.mcp !== undefined || findTool(input.tool)?.effect === 'mutating';
}
