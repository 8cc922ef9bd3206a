import pc from 'picocolors';
import type { SessionChanges } from '../../activities/store/change-feed.js';
import type { Part } from '../../core/records/part.js';
import { describeToolCall } from '../../core/tool-call/description.js';
import { sandboxRefusalOf, subagentCallLine, subagentSteps } from './tool-call.js';

export interface Output {
  write(text: string): unknown;
}

/**
 * Prints a run as it happens: the assistant's text to `answer` (stdout) as it streams, tool calls
 * and errors to `status` (stderr), so `loom run … > answer.txt` keeps just the answer.
 */
export class RunPrinter {
  private readonly userMessages = new Set<string>();
  private readonly printedText = new Map<string, number>();
  private readonly reported = new Set<string>();
  private lastWrite: { stream: 'answer' | 'status'; partId?: string } | undefined;
  private readonly errorsShown = new Set<string>();

  constructor(
    private readonly answer: Output,
    private readonly status: Output,
  ) {}

  update(changes: SessionChanges): void {
    for (const message of changes.messages) if (message.role === 'user') this.userMessages.add(message.id);
    for (const part of changes.parts) this.printPart(part);
    for (const message of changes.messages) {
      if (message.role === 'assistant' && message.error && this.once(`error:${message.id}`)) {
        this.statusLine(pc.red(`✗ ${message.error.name}: ${message.error.message}`));
        this.errorsShown.add(message.error.message);
      }
    }
  }

  /** Whether this error was printed as it happened (the run's outcome need not say it again). */
  showed(error: { message: string } | undefined): boolean {
    return error !== undefined && this.errorsShown.has(error.message);
  }

  /** Ends streamed text with a newline. */
  close(): void {
    if (this.lastWrite?.stream === 'answer') this.answer.write('\n');
    this.lastWrite = undefined;
  }

  private printPart(part: Part): void {
    if (this.userMessages.has(part.messageID)) return;
    if (part.type === 'text' && !part.synthetic) this.printText(part.id, part.text);
    if (part.type === 'reasoning') this.printReasoning(part.id, part.text);
    if (part.type !== 'tool') return;
    const { state } = part;
    if (
      part.tool === 'task' &&
      (state.status === 'running' || state.status === 'completed' || state.status === 'error')
    ) {
      this.printSubagentSteps(part.id, state.metadata);
    }
    const failure = state.status === 'error' ? state.error : sandboxRefusalOf(part);
    if (state.status === 'completed' && !failure && this.once(part.id)) {
      this.statusLine(`${pc.green('✓')} ${describeToolCall(part.tool, state.input)}`);
    }
    if (failure && this.once(part.id)) {
      this.statusLine(
        `${pc.red('✗')} ${describeToolCall(part.tool, state.input)} ${pc.dim('—')} ${firstLine(failure)}`,
      );
    }
  }

  /**
   * A subagent's tool calls, as its parent's task part lists them: one line each once done, as `loom show` prints them.
   */
  private printSubagentSteps(partId: string, metadata: Record<string, unknown> | undefined): void {
    if (metadata?.sessionId && this.once(`task:${partId}`))
      this.statusLine(pc.dim(`→ subagent session ${String(metadata.sessionId)}`));
    for (const step of subagentSteps(metadata)) {
      if ((step.status !== 'completed' && step.status !== 'error') || !this.once(`step:${step.id}`)) continue;
      this.statusLine(subagentCallLine(step));
    }
  }

  private printText(partId: string, text: string): void {
    const fresh = this.unprinted(partId, text);
    if (!fresh) return;
    if (this.lastWrite?.stream === 'answer' && this.lastWrite.partId !== partId) this.answer.write('\n\n');
    this.answer.write(fresh);
    this.lastWrite = { stream: 'answer', partId };
  }

  private printReasoning(partId: string, text: string): void {
    const fresh = this.unprinted(partId, text);
    if (fresh?.trim()) this.statusLine(pc.dim(fresh.trim()));
  }

  /** The part of a streamed text not printed yet (a retried model call rewrites it from the start). */
  private unprinted(partId: string, text: string): string | undefined {
    const printed = this.printedText.get(partId) ?? 0;
    if (text.length <= printed) return undefined;
    this.printedText.set(partId, text.length);
    return text.slice(printed);
  }

  private once(key: string): boolean {
    if (this.reported.has(key)) return false;
    this.reported.add(key);
    return true;
  }

  private statusLine(line: string): void {
    if (this.lastWrite?.stream === 'answer') this.answer.write('\n');
    this.status.write(`${line}\n`);
    this.lastWrite = { stream: 'status' };
  }
}

function firstLine(text: string): string {
  const line = text.split('\n')[0];
  return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}
