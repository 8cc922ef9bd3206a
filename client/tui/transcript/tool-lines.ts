import pc from 'picocolors';
import type { Session } from '../../../core/records/session.js';
import { describeToolCall } from '../../../core/tool-call/description.js';
import { sandboxRefusalOf, subagentSteps, taskSessionId, type ToolPart } from '../../render/tool-call.js';
import { capOutput } from '../render/capped-output.js';
import { renderUnifiedDiff } from '../render/diff.js';
import { oneLine, truncateToWidth } from '../render/columns.js';
import { plural } from '../../render/quantities.js';
import { formatTokens } from './numbers.js';

/** Output lines a finished bash call shows until the details are expanded (OpenCode shows 10). */
const BASH_LINES = 10;
const DIFF_LINES = 30;
const EXPANDED_LINES = 400;
/** How long a call's title may be before it is cut (the terminal cuts it to its width too). */
const TITLE_WIDTH = 200;

/** What a task line says of its subagent's session: its agent, title, state and tokens. */
export interface ChildSummary {
  session: Session;
  tokens: number;
}

export interface ToolLineOptions {
  width: number;
  /** Outputs in full (up to a limit) rather than capped: the details key. */
  expanded: boolean;
  children: ReadonlyMap<string, ChildSummary>;
  /** Ids of the tool parts whose permission request waits: drawn in the warning colour. */
  asking: ReadonlySet<string>;
}

/** A tool call as the transcript shows it: a title line with its state, then what it did. */
export function toolLines(part: ToolPart, options: ToolLineOptions): string[] {
  const { state } = part;
  const refusal = sandboxRefusalOf(part);
  const failure = state.status === 'error' ? state.error : refusal;
  const title = toolTitle(part);
  const head = `${stateMark(part, options, failure)} ${colourTitle(title, part, options, failure)}`;
  const lines = [head];
  if (part.tool === 'task') lines.push(...taskLines(part, options));
  if (failure) {
    lines.push(...indent(firstLines(failure, options.expanded ? 20 : 3).map((line) => pc.red(line))));
    return lines;
  }
  if (state.status === 'running' && part.tool === 'bash') {
    const live = typeof state.metadata?.output === 'string' ? state.metadata.output : '';
    lines.push(...indent(bashOutput(live, options, 'tail')));
  }
  if (state.status !== 'completed') return lines;
  lines.push(...indent(resultLines(part, state, options)));
  return lines;
}

function toolTitle(part: ToolPart): string {
  const input = part.state.input as Record<string, unknown> | undefined;
  if (part.tool === 'bash') {
    const description = typeof input?.description === 'string' ? input.description : undefined;
    const command = typeof input?.command === 'string' ? input.command : '';
    return description
      ? `${description} ${pc.dim(`$ ${oneLine(command, TITLE_WIDTH)}`)}`
      : `$ ${oneLine(command, TITLE_WIDTH)}`;
  }
  if (part.tool === 'task') {
    const description = typeof input?.description === 'string' ? input.description : 'subagent';
    const agent = typeof input?.subagent_type === 'string' ? `@${input.subagent_type} ` : '';
    return `Task ${agent}${description}`;
  }
  return oneLine(describeToolCall(part.tool, part.state.input), TITLE_WIDTH);
}

function stateMark(part: ToolPart, options: ToolLineOptions, failure: string | undefined): string {
  if (failure) return pc.red('✗');
  if (options.asking.has(part.id)) return pc.yellow('△');
  switch (part.state.status) {
    case 'pending':
      return pc.dim('~');
    case 'running':
      return pc.yellow('●');
    default:
      return pc.green('✓');
  }
}

function colourTitle(title: string, part: ToolPart, options: ToolLineOptions, failure: string | undefined): string {
  if (failure) return pc.red(title);
  if (options.asking.has(part.id)) return pc.yellow(title);
  if (part.state.status === 'completed') return pc.dim(title);
  return title;
}

/** Under a task call: its subagent's session (agent, title, state, tokens) and its latest or last steps. */
function taskLines(part: ToolPart, options: ToolLineOptions): string[] {
  const childId = taskSessionId(part);
  const metadata = 'metadata' in part.state ? part.state.metadata : undefined;
  const steps = subagentSteps(metadata);
  const child = childId ? options.children.get(childId) : undefined;
  const lines: string[] = [];
  if (childId) {
    const { session } = child ?? {};
    // A subagent's default title names its agent already: `Find the steps (@explore subagent)`.
    const facts = session
      ? [
          ...(session.title.includes(`@${session.agent}`) ? [] : [`@${session.agent}`]),
          session.title,
          session.status,
          `${formatTokens(child!.tokens)} tokens`,
        ]
      : [];
    lines.push(pc.cyan(`  ↳ ${childId}`) + pc.dim(facts.length ? ` · ${facts.join(' · ')}` : ''));
  }
  if (part.state.status === 'running' || part.state.status === 'pending') {
    const latest = steps.at(-1);
    if (latest) lines.push(pc.dim(`  ↳ ${latest.description ?? latest.tool}`));
  } else if (steps.length) {
    lines.push(pc.dim(`  └ ${plural(steps.length, 'tool call')}`));
  }
  return lines;
}

function resultLines(
  part: ToolPart,
  state: Extract<ToolPart['state'], { status: 'completed' }>,
  options: ToolLineOptions,
): string[] {
  const metadata = state.metadata;
  switch (part.tool) {
    case 'bash': {
      const output = typeof metadata.output === 'string' ? metadata.output : state.output;
      return bashOutput(output, options, 'head');
    }
    case 'edit':
    case 'write': {
      const diff = typeof metadata.diff === 'string' ? metadata.diff : undefined;
      if (!diff) return [];
      return renderUnifiedDiff(diff, {
        width: options.width - 4,
        maxLines: options.expanded ? EXPANDED_LINES : DIFF_LINES,
      });
    }
    case 'todowrite':
      return todoLines(metadata.todos);
    case 'task':
      return [];
    default:
      return options.expanded ? bashOutput(state.output, options, 'head') : [];
  }
}

function bashOutput(text: string, options: ToolLineOptions, keep: 'head' | 'tail'): string[] {
  if (!text.trim()) return [];
  const limit = options.expanded ? EXPANDED_LINES : BASH_LINES;
  const { lines, hidden } = capOutput(text, keep === 'tail' ? Number.MAX_SAFE_INTEGER : limit);
  const shown = keep === 'tail' ? lines.slice(-limit) : lines;
  const cut = keep === 'tail' ? lines.length - shown.length : hidden;
  const fitted = shown.map((line: string) => pc.dim(truncateToWidth(line, options.width - 4)));
  if (cut > 0)
    fitted.push(pc.dim(`… ${plural(cut, 'more line')}${options.expanded ? '' : ' (ctrl+o shows the details)'}`));
  return fitted;
}

function todoLines(todos: unknown): string[] {
  if (!Array.isArray(todos)) return [];
  return todos.map((todo: { content?: string; status?: string }) => {
    const mark = todo.status === 'completed' ? '[✓]' : todo.status === 'in_progress' ? '[•]' : '[ ]';
    const line = `${mark} ${todo.content ?? ''}`;
    return todo.status === 'in_progress' ? pc.yellow(line) : todo.status === 'completed' ? pc.dim(line) : line;
  });
}

function firstLines(text: string, count: number): string[] {
  const lines = text.split('\n');
  return lines.length > count ? [...lines.slice(0, count), `… ${plural(lines.length - count, 'more line')}`] : lines;
}

function indent(lines: string[]): string[] {
  return lines.map((line) => `    ${line}`);
}
