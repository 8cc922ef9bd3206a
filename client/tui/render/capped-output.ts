/* eslint-disable no-control-regex -- this file's job is to find terminal control characters */
import { expandTabs } from './columns.js';

const TAB_SIZE = 8;
/**
 * Terminal escape sequences: CSI (colours, cursor moves, erasing), OSC (titles, links; ended by BEL
 * or ST, or cut off), DCS-like strings, and two-character escapes. Node's stripVTControlCharacters
 * takes `ESC[1Gdone BEL` for one sequence and loses the text.
 */
const ESCAPE_SEQUENCES =
  /\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[ -/]*[0-~]/g;
// C0 controls other than tab, and DEL: bells, backspaces and the like print nothing useful.
const CONTROL_CHARACTERS = /[\x00-\x08\x0b-\x1f\x7f]/g;

/**
 * A command's output made fit for a few lines of the screen: colour and cursor codes removed,
 * tabs expanded, and a line redrawn after carriage returns (a progress bar) shown in its last state. Keeps the first `maxLines` lines;
 * `hidden` is how many more there were.
 */
export function capOutput(text: string, maxLines: number): { lines: string[]; hidden: number } {
  const all = text.split('\n');
  if (all[all.length - 1] === '') all.pop();
  const shown = Math.max(Math.floor(maxLines), 0);
  // Only the lines kept are cleaned: a build log can run to megabytes.
  const lines = all.slice(0, shown).map((line) => {
    const visible = lastDrawn(line.replace(ESCAPE_SEQUENCES, ''));
    return expandTabs(visible.replace(CONTROL_CHARACTERS, ''), TAB_SIZE);
  });
  return { lines, hidden: Math.max(all.length - shown, 0) };
}

/**
 * What a line redrawn with `\r` shows last: its last non-empty drawing. Whatever a shorter
 * drawing left of a longer one is ignored, as programs that redraw usually erase it (`ESC[K`).
 */
function lastDrawn(line: string): string {
  if (!line.includes('\r')) return line;
  return line.split('\r').findLast((drawing) => drawing !== '') ?? '';
}
