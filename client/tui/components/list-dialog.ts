import pc from 'picocolors';
import { stripStyles, textWidth, truncateToWidth } from '../render/columns.js';

/** One row of a picker: what it opens, how it reads, and dim facts beside it. */
export interface ListItem {
  id: string;
  label: string;
  detail?: string;
  /** Marked as working (a busy session). */
  busy?: boolean;
}

/** A picker over the transcript: sessions, models, agents, subagents. Typing filters, Enter picks. */
export interface ListDialog {
  kind: 'sessions' | 'models' | 'agents' | 'children' | 'text';
  title: string;
  items: ListItem[];
  filter: string;
  index: number;
  /** For `text` (the diff, the help): lines shown as they are, scrolled by `index`. */
  lines?: string[];
}

export function filtered(dialog: ListDialog): ListItem[] {
  const words = dialog.filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return dialog.items;
  return dialog.items.filter((item) => {
    const text = `${item.label} ${item.detail ?? ''} ${item.id}`.toLowerCase();
    return words.every((word) => text.includes(word));
  });
}

/** The dialog drawn in `height` lines of `width` columns. */
export function dialogLines(dialog: ListDialog, width: number, height: number): string[] {
  const head = [pc.bold(dialog.title)];
  if (dialog.kind === 'text') {
    const body = dialog.lines ?? [];
    const room = height - 2;
    const start = Math.min(dialog.index, Math.max(body.length - room, 0));
    return [...head, ...body.slice(start, start + room), pc.dim('↑↓ pgup pgdn scroll · esc closes')];
  }
  head.push(`${pc.cyan('search:')} ${dialog.filter}${pc.inverse(' ')}`);
  const items = filtered(dialog);
  const room = Math.max(height - head.length - 1, 1);
  const start = Math.max(0, Math.min(dialog.index - Math.floor(room / 2), items.length - room));
  const rows = items.slice(start, start + room).map((item, offset) => {
    const selected = start + offset === dialog.index;
    const mark = item.busy ? pc.yellow('● ') : '  ';
    const text = `${mark}${item.label}${item.detail ? pc.dim(`  ${item.detail}`) : ''}`;
    // A row too long is cut as plain text (its colours would not survive the cut).
    const cut = textWidth(text) > width - 2 ? truncateToWidth(stripStyles(text), width - 2) : text;
    return selected ? `${pc.cyan('›')} ${pc.inverse(stripStyles(cut))}` : `  ${cut}`;
  });
  if (!items.length) rows.push(pc.dim('  nothing matches'));
  return [...head, ...rows, pc.dim('↑↓ choose · enter opens · esc closes')];
}
