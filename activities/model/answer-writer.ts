import type { SharedV3ProviderMetadata } from '@ai-sdk/provider';
import { partId } from '../../core/records/ids.js';
import type { Part, ReasoningPart, TextPart, ToolPart } from '../../core/records/part.js';
import type { PartRecords } from '../store/parts.js';
import { mergeByProvider } from './merge-by-provider.js';

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
    private readonly store: PartRecords,
    private readonly ids: { sessionID: string; messageID: string },
    private readonly throttleMs = 100,
  ) {}

  text(streamId: string, delta: string, metadata?: SharedV3ProviderMetadata): void {
    const part = this.openPart(`text:${streamId}`, (id) => ({
      ...id,
      type: 'text',
      text: '',
      time: { start: Date.now() },
    })) as TextPart;
    part.text += delta;
    addMetadata(part, metadata);
    this.touch(part);
  }

  reasoning(streamId: string, delta: string, metadata?: SharedV3ProviderMetadata): void {
    const part = this.openPart(`reasoning:${streamId}`, (id) => ({
      ...id,
      type: 'reasoning',
      text: '',
      time: { start: Date.now() },
    })) as ReasoningPart;
    part.text += delta;
    addMetadata(part, metadata);
    this.touch(part);
  }

  /** Loom's own words in the answer (not the model's), shown to people and not sent back to the model. */
  note(text: string): void {
    const part = this.openPart('note', (id) => ({
      ...id,
      type: 'text',
      text,
      synthetic: true,
      time: { start: Date.now(), end: Date.now() },
    }));
    this.touch(part, true);
  }

  /** A finished text or reasoning block. */
  end(kind: 'text' | 'reasoning', streamId: string, metadata?: SharedV3ProviderMetadata): void {
    const index = this.open.get(`${kind}:${streamId}`);
    if (index === undefined) return;
    this.open.delete(`${kind}:${streamId}`);
    const part = this.parts[index] as TextPart | ReasoningPart;
    part.time = { start: part.time?.start ?? Date.now(), end: Date.now() };
    addMetadata(part, metadata);
    this.touch(part, true);
  }

  toolInput(callId: string, tool: string, delta: string): void {
    const part = this.toolPart(callId, tool);
    if (part.state.status === 'pending') part.state.raw += delta;
    this.touch(part);
  }

  /** A complete tool call: it waits (`pending`) until the workflow runs it. */
  toolCall(callId: string, tool: string, input: unknown, raw: string, metadata?: SharedV3ProviderMetadata): ToolPart {
    const part = this.toolPart(callId, tool);
    part.state = { status: 'pending', input: isRecord(input) ? input : {}, raw };
    addMetadata(part, metadata);
    this.touch(part, true);
    return part;
  }

  /**
   * The answer's text was read as tool calls (see tool-call-repair.ts): the text keeps what is
   * left, and each call becomes a tool part marked `repaired`. A text part left empty becomes the
   * first call, so no empty part is stored.
   */
  textToToolCalls(
    remaining: string,
    calls: { tool: string; input: Record<string, unknown>; raw: string }[],
  ): ToolPart[] {
    const texts = this.parts.filter((part): part is TextPart => part.type === 'text');
    for (const part of texts) {
      part.text = part === texts[0] ? remaining : '';
      this.touch(part);
    }
    return calls.map((call, index) => {
      const reuse = index === 0 && remaining === '' && texts[0] ? this.parts.indexOf(texts[0]) : undefined;
      const callId = `repaired_${this.ids.messageID}_${index}`;
      const ids = {
        id: reuse === undefined ? partId(this.ids.messageID, this.parts.length) : texts[0].id,
        ...this.ids,
      };
      const part: ToolPart = {
        ...ids,
        type: 'tool',
        callID: callId,
        tool: call.tool,
        state: { status: 'pending', input: call.input, raw: call.raw },
        repaired: true,
      };
      if (reuse === undefined) this.parts.push(part);
      else this.parts[reuse] = part;
      this.touch(part, true);
      return part;
    });
  }

  /** Whether the answer holds anything: text or reasoning that is not blank, or a tool call. */
  hasContent(): boolean {
    return this.parts.some(
      (part) =>
        part.type === 'tool' || ((part.type === 'text' || part.type === 'reasoning') && part.text.trim() !== ''),
    );
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

/** Providers send metadata at a block's start, with a delta (a signature) or at its end: kept together. */
function addMetadata(part: TextPart | ReasoningPart | ToolPart, metadata: SharedV3ProviderMetadata | undefined): void {
  if (metadata) part.metadata = mergeByProvider(part.metadata as SharedV3ProviderMetadata | undefined, metadata);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
