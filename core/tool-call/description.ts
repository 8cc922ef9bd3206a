import { findTool } from '../tools/index.js';

/**
 * `read README.md`, `grep TODO in *.ts`: a tool call as a person reads it, the tool and its main
 * argument (from the tool's spec). The CLI's live and stored lines and the web view's subagent
 * steps all use it, so they say the same of one call.
 */
export function describeToolCall(tool: string, input: unknown): string {
  const spec = findTool(tool);
  const parsed = spec?.parameters.safeParse(input);
  return spec && parsed?.success ? `${tool} ${spec.summarize(parsed.data)}` : tool;
}
