import cliTruncate from 'cli-truncate';
import pc from 'picocolors';
import type { PromptBuffer } from '../input/prompt-buffer.js';
import type { SessionSnapshot } from '../session/session-watch.js';
import type { TranscriptLines } from '../transcript/transcript-lines.js';
import { textWidth } from '../render/columns.js';
import { completionLines, type CompletionMenu } from './completion-menu.js';
import type { FooterFacts } from './footer-lines.js';
import { footerLine } from './footer-lines.js';
import { headerLine, homeLines } from './header-lines.js';
import { dialogLines, type ListDialog } from './list-dialog.js';
import { permissionLines, type PermissionStep } from './permission-lines.js';
import { promptLines } from './prompt-lines.js';

/** The smallest terminal the screen is drawn in; a smaller one is asked to grow. */
export const MIN_COLUMNS = 50;
export const MIN_ROWS = 12;
export const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** What the screen says on its status row: an error in red, anything else dim; gone after a while. */
export interface Notice {
  text: string;
  error: boolean;
  at: number;
}

/** Everything one frame of the screen shows. */
export interface ScreenState {
  columns: number;
  rows: number;
  sessionId: string | undefined;
  snapshot: SessionSnapshot | undefined;
  directory: string;
  footer: FooterFacts;
  transcript: TranscriptLines;
  buffer: PromptBuffer;
  queued: readonly { text: string }[];
  menu: CompletionMenu | undefined;
  menuIndex: number;
  dialog: ListDialog | undefined;
  permissionStep: PermissionStep;
  expanded: boolean;
  thinking: boolean;
  scroll: number;
  tick: number;
  notice: Notice | undefined;
  leaderPending: boolean;
}

/**
 * The screen as its sections (title, transcript, prompt or waiting request, status row, footer),
 * each line cut to the terminal's width. Ink draws them (components/app.tsx), and so does the
 * first paint before Ink has loaded (first-paint.ts): the same lines, so Ink's first frame
 * lands on the same cells.
 */
export function screenSections(state: ScreenState): string[] {
  const { columns: width, rows, snapshot, sessionId } = state;
  if (width < MIN_COLUMNS || rows < MIN_ROWS)
    return [
      `Terminal too small (${width}×${rows}): Loom needs at least ${MIN_COLUMNS}×${MIN_ROWS}. Resize it, or ctrl+c to quit.`,
    ];
  const request = snapshot?.pending[0];
  const header = headerLine(snapshot, width, sessionId);
  const bottom = request
    ? permissionLines(request, {
        width,
        viewedSessionId: sessionId,
        waiting: snapshot?.pending.length ?? 0,
        step: state.permissionStep,
      })
    : [
        ...state.queued.map((item) => pc.dim(`⋯ queued: ${item.text.split('\n')[0].slice(0, width - 12)}`)),
        pc.dim('─'.repeat(width)),
        ...(state.menu ? completionLines(state.menu, state.menuIndex, width) : []),
        ...promptLines(state.buffer, {
          width,
          placeholder: sessionId ? 'Ask anything…  (enter sends, ctrl+j new line)' : 'Ask anything to start a session…',
          focused: !state.dialog,
        }),
      ];
  const status = statusLine({
    busy: snapshot?.session?.status === 'busy',
    tick: state.tick,
    notice: state.notice,
    leaderPending: state.leaderPending,
  });
  const footer = footerLine(snapshot, state.footer, width);
  // One line short of the screen: a frame as tall as the terminal makes Ink clear it on every draw.
  const height = Math.max(rows - 1 - 1 - bottom.length - 2, 3);
  let body: string[];
  if (state.dialog) body = padTo(dialogLines(state.dialog, width, height), height);
  else if (!snapshot) body = padTo(homeLines(state.directory, width, height), height, 'center');
  else {
    const view = state.transcript.window(
      shownEntries(snapshot),
      {
        width,
        expanded: state.expanded,
        thinking: state.thinking,
        children: new Map(snapshot.children.map((child) => [child.session.id, child])),
        asking: new Set(snapshot.pending.map((pending) => pending.partID)),
        decorations: snapshot.revision,
      },
      height,
      state.scroll,
    );
    body = padTo([...view.lines, ...revertLines(snapshot, width)].slice(-height), height);
  }
  return [[header], body, bottom, [status], [footer]].map((lines) => fitted(lines, width).join('\n'));
}

/** Each line cut to `width` as Ink's `truncate-end` would cut it, so Ink never has to. */
function fitted(lines: string[], width: number): string[] {
  return lines.map((line) => (textWidth(line) > width ? cliTruncate(line, width, { position: 'end' }) : line));
}

/** The entries shown: after an undo, not those it hid from the model (a marker says so below them). */
function shownEntries(snapshot: SessionSnapshot) {
  const from = snapshot.session?.revert?.messageID;
  return from ? snapshot.entries.filter((entry) => entry.message.id < from) : snapshot.entries;
}

function revertLines(snapshot: SessionSnapshot, width: number): string[] {
  const revert = snapshot.session?.revert;
  if (!revert) return [];
  const hidden = snapshot.entries.filter(
    (entry) => entry.message.id >= revert.messageID && entry.message.role === 'user',
  ).length;
  const files = revert.files.length ? ` · files put back: ${revert.files.join(', ')}` : '';
  return [
    '',
    pc.yellow(`↶ ${hidden === 1 ? '1 turn' : `${hidden} turns`} undone${files}`.slice(0, width)),
    pc.dim('  ctrl+x r or /redo brings it back; the next prompt drops it'),
  ];
}

function statusLine(options: {
  busy: boolean;
  tick: number;
  notice: Notice | undefined;
  leaderPending: boolean;
}): string {
  const left = options.leaderPending
    ? pc.cyan('ctrl+x …  ← → subagents · ↑ parent · ↓ list · l sessions · n new · m models · u undo · q quit')
    : options.busy
      ? `${pc.yellow(SPINNER[options.tick % SPINNER.length])} working · ${pc.dim('esc esc interrupts · ctrl+d leaves it running')}`
      : '';
  const notice =
    options.notice && Date.now() - options.notice.at < (options.notice.error ? 15_000 : 6_000)
      ? options.notice.error
        ? pc.red(options.notice.text)
        : pc.dim(options.notice.text)
      : '';
  if (notice) return left ? `${left}  ${notice}` : notice;
  return left || pc.dim('tab agents · ctrl+x l sessions · ctrl+x m models · ctrl+x ↓ subagents · /help');
}

function padTo(lines: string[], height: number, align: 'bottom' | 'center' = 'bottom'): string[] {
  if (lines.length >= height) return lines.slice(lines.length - height);
  const missing = height - lines.length;
  const top = align === 'center' ? Math.floor(missing / 2) : missing;
  return [...Array(top).fill(''), ...lines, ...Array(missing - top).fill('')];
}
