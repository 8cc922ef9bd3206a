import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { mcpConnection } from '../mcp/servers.js';
import { ToolError, type Attachment, type ToolHandler, type ToolOutput } from './running/tool-handler.js';

/** How long one call may run; progress notifications from the server restart the clock. */
const CALL_TIMEOUT_MS = 10 * 60_000;

/**
 * A call of an MCP server's tool, on the workspace's host: the server is started if it is not
 * running (or died since), the call is cancelled with the run, and the result becomes text for
 * the model (images as attachments). A result the server marks as an error is the call's error.
 */
export function mcpToolHandler(target: { server: string; tool: string }): ToolHandler {
  return async (input, context) => {
    const server = context.config.mcp?.[target.server];
    if (!server)
      throw new ToolError(
        `MCP server "${target.server}" is not configured in this project any more (the "mcp" key of its config).`,
      );
    if (server.enabled === false)
      throw new ToolError(`MCP server "${target.server}" is disabled in this project's config.`);
    const connection = await mcpConnection(target.server, server, {
      directory: context.directory,
      env: context.env,
      config: context.config,
    });
    let result: CallToolResult;
    try {
      result = (await connection.client.callTool({ name: target.tool, arguments: input }, undefined, {
        signal: context.abort,
        timeout: CALL_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        onprogress: (progress) => {
          if (progress.message) context.update({ title: progress.message });
        },
      })) as CallToolResult;
    } catch (error) {
      if (!connection.closed || context.abort.aborted) throw error;
      const stderr = connection.stderr
        ? `\nIts last stderr lines:\n${connection.stderr.split('\n').slice(-5).join('\n')}`
        : '';
      throw new ToolError(
        `MCP server "${target.server}" stopped during the call; it is started again for the next one.${stderr}`,
      );
    }
    const output = outputOf(result);
    if (result.isError)
      throw new ToolError(output.output || `${target.tool} failed on MCP server "${target.server}" without a message`);
    return { ...output, title: target.tool };
  };
}

function outputOf(result: CallToolResult): Omit<ToolOutput, 'title'> {
  const texts: string[] = [];
  const attachments: Attachment[] = [];
  for (const item of result.content ?? []) {
    if (item.type === 'text') texts.push(item.text);
    else if (item.type === 'image')
      attachments.push({ mime: item.mimeType, url: `data:${item.mimeType};base64,${item.data}` });
    else if (item.type === 'resource')
      texts.push(
        'text' in item.resource
          ? String(item.resource.text)
          : `[resource ${item.resource.uri} (${item.resource.mimeType ?? 'binary'})]`,
      );
    else if (item.type === 'resource_link')
      texts.push(`[resource ${item.uri}${item.description ? `: ${item.description}` : ''}]`);
    else texts.push(`[${item.type} content is not shown]`);
  }
  if (texts.length === 0 && result.structuredContent) texts.push(JSON.stringify(result.structuredContent, null, 2));
  return { output: texts.join('\n\n'), ...(attachments.length ? { attachments } : {}) };
}
