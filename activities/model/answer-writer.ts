import { partId } from '../../core/ids.js';
import type { Part, ReasoningPart, TextPart, ToolPart } from '../../core/part.js';
import type { SessionStore } from '../store/store.js';

/**
 * Turns a streamed answer into parts of one assistant message, in the order they started.
 * Deltas are written at most every `throttleMs`; structural changes (a finished block, a
 * complete tool call) are written at once.
 */
export class AnswerWriter {
  private readonly parts: Part[] = [];
  private readonly open = new Map<string, number>();
  private readonly dirty = new Set<number>();
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private failure: unknown;

  constructor(
    private readonly store: SessionStore,
    private readonly ids: { sessionID: string; messageID: string },
    private readonly throttleMs = 100,
  ) {}

  text(streamId: string, delta: string): void {
    const part = this.openPart(`text:${streamId}`, (id) => ({ ...id, type: 'text', text: '', time: { start: Date.now() } }));
    (part as TextPart).text += delta;
    this.touch(part);
  }

  reasoning(streamId: string, delta: string): void {
    const part = this.openPart(`reasoning:${streamId}`, (id) => ({ ...id, type: 'reasoning', text: '', time: { start: Date.now() } }));
    (part as ReasoningPart).text += delta;
    this.touch(part);
  }

  /** A finished text or reasoning block. */
  end(kind: 'text' | 'reasoning', streamId: string): void {
    const index = this.open.get(`${kind}:${streamId}`);
    if (index === undefined) return;
    this.open.delete(`${kind}:${streamId}`);
    const part = this.parts[index] as TextPart | ReasoningPart;
    part.time = { start: part.time?.start ?? Date.now(), end: Date.now() };
    this.touch(part, true);
  }

  toolInput(callId: string, tool: string, delta: string): void {
    const part = this.toolPart(callId, tool);
    if (part.state.status === 'pending') part.state.raw += delta;
    this.touch(part);
  }

  /** A complete tool call: it waits (`pending`) until the workflow runs it. */
  toolCall(callId: string, tool: string, input: unknown, raw: string): ToolPart {
    const part = this.toolPart(callId, tool);
    part.state = { status: 'pending', input: isRecord(input) ? input : {}, raw };
    this.touch(part, true);
    return part;
  }

  /** Whether the answer holds anything: text or reasoning that is not blank, or a tool call. */
  hasContent(): boolean {
    return this.parts.some((part) => part.type === 'tool' || ((part.type === 'text' || part.type === 'reasoning') && part.text.trim() !== ''));
  }

  textOf(): string {
    return this.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
  }

  /** Writes everything not yet written; throws if any write failed. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const pending = [...this.dirty].map((index) => structuredClone(this.parts[index]));
    this.dirty.clear();
    this.writing = this.writing
      .then(async () => {
        for (const part of pending) await this.store.savePart(part);
      })
      .catch((error: unknown) => {
        this.failure ??= error;
      });
    await this.writing;
    if (this.failure) throw this.failure;
  }

  private toolPart(callId: string, tool: string): ToolPart {
    return this.openPart(`tool:${callId}`, (id) => ({
      ...id,
      type: 'tool',
      callID: callId,
      tool,
      state: { status: 'pending', input: {}, raw: '' },
    })) as ToolPart;
  }

  private openPart(key: string, create: (ids: Pick<Part, 'id' | 'sessionID' | 'messageID'>) => Part): Part {
    const existing = this.open.get(key);
    if (existing !== undefined) return this.parts[existing];
    const index = this.parts.length;
    this.parts.push(create({ id: partId(this.ids.messageID, index), ...this.ids }));
    this.open.set(key, index);
    return this.parts[index];
  }

  private touch(part: Part, now = false): void {
    this.dirty.add(this.parts.indexOf(part));
    // Background writes record their failure; the final flush reports it.
    const flushQuietly = () => this.flush().catch(() => undefined);
    if (now) void flushQuietly();
    else this.timer ??= setTimeout(flushQuietly, this.throttleMs);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
