import { blend, cssColour, resolveColour, THEME } from './palette.js';
import { parseStyledScreen, type CellStyle, type StyledRun } from './sgr.js';

export interface ScreenPictureOptions {
  columns: number;
  rows: number;
  /** Shown in the window's title bar. */
  title?: string;
}

/** The element of the page that is the picture: the window and the margin its shadow falls in. */
export const PICTURE_SELECTOR = '#picture';

/**
 * Characters two cells wide in a terminal (East Asian wide, emoji shown as emoji). tmux leaves
 * out the cell after one, so the grid stays aligned only if the page gives it two.
 */
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\p{Emoji_Presentation}\u{20000}-\u{3fffd}]/u;

/** Box drawing (U+2500–257F) and block elements (U+2580–259F). */
const BOX_DRAWING = /[\u2500-\u259f]/;

/**
 * A page drawing a captured screen (`tmux capture-pane -e`) as a terminal window: a monospace grid
 * of `columns` by `rows` cells on the theme's dark background, in a window with a title bar.
 */
export function screenHtml(capture: string, { columns, rows, title = '' }: ScreenPictureOptions): string {
  const lines = parseStyledScreen(capture).slice(0, rows);
  while (lines.length < rows) lines.push([]);
  const body = lines.map((runs) => `<div class="row">${rowHtml(runs, columns)}</div>`).join('');
  return `<!doctype html>
<html><head><meta charset="utf-8"><style>
  body { margin: 0; background: transparent; }
  #picture { display: inline-block; padding: 28px; }
  .window { border-radius: 10px; overflow: hidden; background: ${cssColour(THEME.background)};
    box-shadow: 0 12px 28px rgba(0, 0, 0, 0.35), 0 0 0 1px rgba(255, 255, 255, 0.08); }
  .bar { position: relative; height: 34px; background: #23262e; border-bottom: 1px solid #0f1014;
    font: 13px/34px 'DejaVu Sans', 'Liberation Sans', sans-serif; color: #9aa0ab; text-align: center; }
  .dots { position: absolute; left: 14px; top: 11px; display: flex; gap: 8px; }
  .dots span { width: 12px; height: 12px; border-radius: 50%; }
  .screen { padding: 12px 14px; width: ${columns}ch; color: ${cssColour(THEME.foreground)};
    font-family: 'DejaVu Sans Mono', 'Liberation Mono', monospace; font-size: 15px;
    line-height: 17.5px; white-space: pre; font-variant-ligatures: none; }
  /* A glyph from a fallback font, with other metrics, must not make its row taller. */
  .row { height: 17.5px; overflow: hidden; }
  .cell { display: inline-block; width: 1ch; text-align: center; }
  .wide { display: inline-block; width: 2ch; text-align: center; }
  /* Box-drawing and block glyphs come out a little shorter than a row; stretched, borders join. */
  .box { transform: scaleY(1.15); }
</style></head><body><div id="picture"><div class="window">
<div class="bar"><div class="dots"><span style="background:#e5625e"></span><span style="background:#e8b34a"></span><span style="background:#5fbf5a"></span></div>${escapeHtml(title)}</div>
<div class="screen">${body}</div>
</div></div></body></html>`;
}

function rowHtml(runs: StyledRun[], columns: number): string {
  let html = '';
  let used = 0;
  for (const { text, style } of runs) {
    let cells = '';
    for (const char of text) {
      const width = WIDE.test(char) ? 2 : 1;
      if (used + width > columns) break;
      used += width;
      cells += cellHtml(char, width);
    }
    html += spanHtml(cells, style);
  }
  // Pads every row to the full width, so each row is as tall as a line of the font and no taller.
  return html + ' '.repeat(columns - used);
}

/** Characters outside ASCII sit in a box of exactly their cell width, whatever the font that draws them. */
function cellHtml(char: string, width: number): string {
  if (char < '\u007f') return escapeHtml(char);
  if (width === 2) return `<span class="wide">${escapeHtml(char)}</span>`;
  return `<span class="${BOX_DRAWING.test(char) ? 'cell box' : 'cell'}">${escapeHtml(char)}</span>`;
}

function spanHtml(content: string, style: CellStyle): string {
  if (!content) return '';
  let foreground = resolveColour(style.foreground, THEME.foreground);
  let background = resolveColour(style.background, THEME.background);
  if (style.inverse) [foreground, background] = [background, foreground];
  if (style.dim) foreground = blend(foreground, background, 0.45);
  if (style.hidden) foreground = background;
  const css: string[] = [];
  if (foreground !== THEME.foreground) css.push(`color:${cssColour(foreground)}`);
  if (background !== THEME.background) css.push(`background:${cssColour(background)}`);
  if (style.bold) css.push('font-weight:bold');
  if (style.italic) css.push('font-style:italic');
  const lines = [style.underline && 'underline', style.strikethrough && 'line-through'].filter(Boolean);
  if (lines.length) css.push(`text-decoration:${lines.join(' ')}`);
  return css.length ? `<span style="${css.join(';')}">${content}</span>` : content;
}

function escapeHtml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');
}
