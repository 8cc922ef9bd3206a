import { isAbsolute, resolve } from 'node:path';
import { applyPatch, parsePatch, reversePatch } from 'diff';
import type { ToolCall, ToolCallContent, ToolCallLocation, ToolCallStatus, ToolKind } from '@agentclientprotocol/sdk';
import type { ToolPart } from '../../core/records/part.js';
import { describeToolCall } from '../../core/tool-call/description.js';
import { subagentSteps } from '../render/tool-call.js';

/** What an editor groups a call under (its icon, whether it shows a diff or a terminal). */
const KINDS: Record<string, ToolKind> = {
  read: 'read',
  list: 'read',
  glob: 'search',
  grep: 'search',
  edit: 'edit',
  write: 'edit',
  bash: 'execute',
  webfetch: 'fetch',
  todowrite: 'think',
  todoread: 'think',
  task: 'think',
  task_status: 'think',
};

/** Tool outputs longer than this are cut in the editor's view; the store keeps them whole. */
const MAX_OUTPUT_CHARS = 20_000;

export function toolKind(tool: string): ToolKind {
  return KINDS[tool] ?? 'other';
}

export function toolStatus(part: ToolPart): ToolCallStatus {
  const { status } = part.state;
  return status === 'running' ? 'in_progress' : status === 'error' ? 'failed' : status;
}

/** A tool call as ACP's `tool_call` carries it: everything the part says so far. */
export function toolCallOf(part: ToolPart, directory: string): ToolCall {
  const input = inputOf(part);
  return {
    toolCallId: part.callID,
    title: describeToolCall(part.tool, input),
    kind: toolKind(part.tool),
    status: toolStatus(part),
    content: toolContent(part, directory),
    locations: toolLocations(part.tool, input, directory),
    rawInput: input,
    ...(part.state.status === 'completed' ? { rawOutput: { output: part.state.output, title: part.state.title } } : {}),
  };
}

function inputOf(part: ToolPart): Record<string, unknown> {
  const input = part.state.input;
  return input && typeof input === 'object' ? (input as Record<string, unknown>) : {};
}

/** The files a call reads or changes, with the line a read starts at. */
export function toolLocations(tool: string, input: Record<string, unknown>, directory: string): ToolCallLocation[] {
  const filePath = typeof input.filePath === 'string' ? input.filePath : undefined;
  if (!filePath || !['read', 'edit', 'write'].includes(tool)) return [];
  const path = absolute(filePath, directory);
  const offset = typeof input.offset === 'number' ? input.offset : undefined;
  return [tool === 'read' && offset ? { path, line: offset } : { path }];
}

/** A diff for edits and writes, the subagent's steps for a task, then the output (or error) once done. */
export function toolContent(part: ToolPart, directory: string): ToolCallContent[] {
  const input = inputOf(part);
  const content: ToolCallContent[] = [];
  const diff = diffOf(part, input, directory);
  if (diff) content.push(diff);
  const { state } = part;
  if (part.tool === 'task' && state.status !== 'pending') {
    const steps = subagentSteps(state.metadata).map(
      (step) =>
        `${step.status === 'completed' ? '✓' : step.status === 'error' ? '✗' : '…'} ${step.description ?? step.tool}`,
    );
    const child = typeof state.metadata?.sessionId === 'string' ? [`subagent session ${state.metadata.sessionId}`] : [];
    if (steps.length || child.length) content.push(text([...child, ...steps].join('\n')));
  }
  if (state.status === 'completed' && part.tool !== 'todowrite') content.push(text(clip(state.output)));
  if (state.status === 'error') content.push(text(state.error));
  return content;
}

function diffOf(part: ToolPart, input: Record<string, unknown>, directory: string): ToolCallContent | undefined {
  if (typeof input.filePath !== 'string') return undefined;
  const path = absolute(input.filePath, directory);
  if (part.tool === 'edit' && typeof input.oldString === 'string' && typeof input.newString === 'string') {
    return { type: 'diff', path, oldText: input.oldString || null, newText: input.newString };
  }
  if (part.tool === 'write' && typeof input.content === 'string' && part.state.status === 'completed') {
    const { metadata } = part.state;
    const oldText = metadata.created ? null : fileBefore(input.content, metadata.diff);
    return oldText === undefined ? undefined : { type: 'diff', path, oldText, newText: input.content };
  }
  return undefined;
}

/** The file a write replaced, from what it wrote and the diff it recorded (applied backwards). */
export function fileBefore(after: string, diff: unknown): string | undefined {
  if (typeof diff !== 'string') return undefined;
  const [patch] = parsePatch(diff);
  if (!patch) return undefined;
  const before = applyPatch(after, reversePatch(patch));
  return before === false ? undefined : before;
}

function absolute(path: string, directory: string): string {
  return isAbsolute(path) ? path : resolve(directory, path);
}

function clip(output: string): string {
  return output.length > MAX_OUTPUT_CHARS ? `${output.slice(0, MAX_OUTPUT_CHARS)}\n… (cut)` : output;
}

function text(value: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text: value } };
}
