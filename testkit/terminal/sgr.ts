/** A terminal colour as the program chose it: the terminal's default, one of the 256 indexed, or 24-bit. */
export type TerminalColour =
  { kind: 'default' } | { kind: 'indexed'; index: number } | { kind: 'rgb'; red: number; green: number; blue: number };

/** What SGR (Select Graphic Rendition) codes can set for a cell. */
export interface CellStyle {
  foreground: TerminalColour;
  background: TerminalColour;
  bold: boolean;
  dim: boolean;
  italic: boolean;
  underline: boolean;
  inverse: boolean;
  hidden: boolean;
  strikethrough: boolean;
}

/** Characters that share a style. */
export interface StyledRun {
  text: string;
  style: CellStyle;
}

export const PLAIN_STYLE: CellStyle = {
  foreground: { kind: 'default' },
  background: { kind: 'default' },
  bold: false,
  dim: false,
  italic: false,
  underline: false,
  inverse: false,
  hidden: false,
  strikethrough: false,
};

const ESC = '\u001b';

/**
 * Reads a screen captured with its escape codes (`tmux capture-pane -e`) into lines of styled
 * runs. A style carries over from one line to the next, as tmux writes it; escape sequences other
 * than SGR (OSC titles, cursor moves) are skipped.
 */
export function parseStyledScreen(capture: string): StyledRun[][] {
  const lines: StyledRun[][] = [[]];
  let style = PLAIN_STYLE;
  let text = '';
  const flush = () => {
    if (text) lines[lines.length - 1].push({ text, style });
    text = '';
  };
  for (let at = 0; at < capture.length;) {
    const char = capture[at];
    if (char === '\n') {
      flush();
      lines.push([]);
      at += 1;
    } else if (char === ESC) {
      const sequence = readEscape(capture, at);
      if (sequence.sgr !== undefined) {
        flush();
        style = applySgr(style, sequence.sgr);
      }
      at = sequence.end;
    } else {
      // Other C0 controls (a stray \r) take no cell.
      if (char >= ' ') text += char;
      at += 1;
    }
  }
  flush();
  if (lines.length > 1 && lines[lines.length - 1].length === 0) lines.pop();
  return lines;
}

/** Where the escape sequence starting at `at` ends, and its parameters when it is an SGR (`ESC [ … m`). */
function readEscape(input: string, at: number): { end: number; sgr?: string } {
  const kind = input[at + 1];
  if (kind === '[') {
    let end = at + 2;
    while (end < input.length && !/[\u0040-\u007e]/.test(input[end])) end += 1;
    const parameters = input.slice(at + 2, end);
    return { end: end + 1, sgr: input[end] === 'm' ? parameters : undefined };
  }
  if (kind === ']' || kind === 'P' || kind === '_') {
    // OSC, DCS and APC strings end with BEL or ST (ESC \).
    for (let end = at + 2; end < input.length; end += 1) {
      if (input[end] === '\u0007') return { end: end + 1 };
      if (input[end] === ESC && input[end + 1] === '\\') return { end: end + 2 };
    }
    return { end: input.length };
  }
  return { end: Math.min(at + 2, input.length) };
}

/** The style after one SGR sequence's parameters (`1;38;5;196`, `38:2::10:20:30`, or empty for a reset). */
export function applySgr(current: CellStyle, parameters: string): CellStyle {
  const codes = parameters === '' ? ['0'] : parameters.split(';');
  let style = { ...current };
  for (let index = 0; index < codes.length; index += 1) {
    const [head, ...subparameters] = codes[index].split(':');
    const code = head === '' ? 0 : Number(head);
    if (code === 38 || code === 48 || code === 58) {
      // Colon form carries its arguments along (38:5:n, 38:2:[space]:r:g:b); semicolon form takes the next codes.
      const extended = subparameters.length > 0 ? readColonColour(subparameters) : readSemicolonColour(codes, index);
      index += extended.consumed;
      if (code === 38 && extended.colour) style.foreground = extended.colour;
      if (code === 48 && extended.colour) style.background = extended.colour;
      // 58 is the underline's colour, which the screenshot does not draw.
      continue;
    }
    style = applyCode(style, code, subparameters);
  }
  return style;
}

function applyCode(style: CellStyle, code: number, subparameters: string[]): CellStyle {
  if (code === 0) return { ...PLAIN_STYLE };
  if (code >= 30 && code <= 37) return { ...style, foreground: { kind: 'indexed', index: code - 30 } };
  if (code >= 90 && code <= 97) return { ...style, foreground: { kind: 'indexed', index: code - 90 + 8 } };
  if (code >= 40 && code <= 47) return { ...style, background: { kind: 'indexed', index: code - 40 } };
  if (code >= 100 && code <= 107) return { ...style, background: { kind: 'indexed', index: code - 100 + 8 } };
  switch (code) {
    case 1:
      return { ...style, bold: true };
    case 2:
      return { ...style, dim: true };
    case 3:
      return { ...style, italic: true };
    case 4:
      // 4:0 is "no underline"; 4:1 to 4:5 are its shapes (single, double, curly …).
      return { ...style, underline: subparameters[0] !== '0' };
    case 7:
      return { ...style, inverse: true };
    case 8:
      return { ...style, hidden: true };
    case 9:
      return { ...style, strikethrough: true };
    case 21:
      return { ...style, underline: true };
    case 22:
      return { ...style, bold: false, dim: false };
    case 23:
      return { ...style, italic: false };
    case 24:
      return { ...style, underline: false };
    case 27:
      return { ...style, inverse: false };
    case 28:
      return { ...style, hidden: false };
    case 29:
      return { ...style, strikethrough: false };
    case 39:
      return { ...style, foreground: { kind: 'default' } };
    case 49:
      return { ...style, background: { kind: 'default' } };
    default:
      // Blink, fonts, overline and the rest change nothing a screenshot shows.
      return style;
  }
}

function readSemicolonColour(codes: string[], index: number): { colour?: TerminalColour; consumed: number } {
  const mode = codes[index + 1];
  if (mode === '5') return { colour: indexed(codes[index + 2]), consumed: 2 };
  if (mode === '2') return { colour: rgb(codes.slice(index + 2, index + 5)), consumed: 4 };
  return { consumed: mode === undefined ? 0 : 1 };
}

function readColonColour(subparameters: string[]): { colour?: TerminalColour; consumed: number } {
  const [mode, ...rest] = subparameters;
  if (mode === '5') return { colour: indexed(rest[0]), consumed: 0 };
  // ITU T.416 puts a colour-space id before r:g:b (often empty); some programs leave it out.
  if (mode === '2') return { colour: rgb(rest.length >= 4 ? rest.slice(1, 4) : rest), consumed: 0 };
  return { consumed: 0 };
}

function indexed(code: string | undefined): TerminalColour | undefined {
  const index = Number(code);
  return Number.isInteger(index) && index >= 0 && index <= 255 ? { kind: 'indexed', index } : undefined;
}

function rgb(codes: string[]): TerminalColour | undefined {
  const [red, green, blue] = codes.map((code) => Math.min(255, Math.max(0, Number(code || 0))));
  if (codes.length < 3 || [red, green, blue].some(Number.isNaN)) return undefined;
  return { kind: 'rgb', red, green, blue };
}
