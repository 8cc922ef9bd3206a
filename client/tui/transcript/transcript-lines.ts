import type { Entry } from './transcript-model.js';
import { entryLines, type EntryOptions } from './entry-lines.js';
import { highlighterReady } from '../render/highlight.js';

/** What every entry's lines depend on besides the entry itself. */
export type ViewOptions = Omit<EntryOptions, 'turnStartedAt' | 'endsTurn'> & {
  /** Bumped when the subagents' summaries or the waiting requests change: task lines are drawn again. */
  decorations: number;
};

interface Cached {
  key: string;
  lines: string[];
}

/**
 * The transcript as terminal lines, built from the bottom up and only as far as the screen needs:
 * a 5,000-message session draws the last screenful, and an entry that has not changed is not
 * drawn again (its lines are kept by revision and options), so a streaming answer redraws itself alone.
 */
export class TranscriptLines {
  private readonly cache = new Map<string, Cached>();

  /**
   * The `height` lines ending `scroll` lines above the bottom, and how far up the transcript goes
   * (so scrolling stops at its top).
   */
  window(
    entries: Entry[],
    options: ViewOptions,
    height: number,
    scroll: number,
  ): { lines: string[]; maxScroll: number } {
    const wanted = height + scroll;
    const collected: string[][] = [];
    let count = 0;
    let index = entries.length - 1;
    for (; index >= 0 && count < wanted + height; index--) {
      const lines = this.linesOf(entries, index, options);
      collected.push(lines);
      count += lines.length;
    }
    const all = collected.reverse().flat();
    const reachedTop = index < 0;
    const maxScroll = reachedTop ? Math.max(all.length - height, 0) : Number.MAX_SAFE_INTEGER;
    const offset = Math.min(scroll, Math.max(all.length - height, 0));
    const end = all.length - offset;
    return { lines: all.slice(Math.max(end - height, 0), end), maxScroll };
  }

  /** Forgets entries no longer in the transcript (a revert, a switch of session). */
  prune(entries: Entry[]): void {
    if (this.cache.size <= entries.length) return;
    const live = new Set(entries.map((entry) => entry.message.id));
    for (const id of this.cache.keys()) if (!live.has(id)) this.cache.delete(id);
  }

  private linesOf(entries: Entry[], index: number, options: ViewOptions): string[] {
    const entry = entries[index];
    const next = entries[index + 1];
    const { message } = entry;
    const endsTurn =
      message.role === 'assistant' &&
      (Boolean(message.error) || (message.finish !== undefined && message.finish !== 'tool-calls')) &&
      (next === undefined || next.message.role === 'user');
    const decorated = entry.parts.some((part) => part.type === 'tool');
    const key = [
      entry.revision,
      options.width,
      options.expanded,
      options.thinking,
      decorated ? options.decorations : 0,
      endsTurn,
      highlighterReady(),
    ].join(':');
    const cached = this.cache.get(message.id);
    if (cached?.key === key) return cached.lines;
    const turnStartedAt = message.role === 'assistant' ? userTime(entries, index, message.parentID) : undefined;
    const lines = entryLines(entry, { ...options, endsTurn, turnStartedAt });
    this.cache.set(message.id, { key, lines });
    return lines;
  }
}

/** When the user message `parentId` was sent: looked for above the answer, where it is. */
function userTime(entries: Entry[], index: number, parentId: string): number | undefined {
  for (let at = index - 1; at >= 0; at--) {
    const { message } = entries[at];
    if (message.id === parentId) return message.time.created;
  }
  return undefined;
}
