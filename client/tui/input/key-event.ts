import { strokeName } from './key-combo.js';
import { clusterEnd } from './text-cells.js';

/**
 * A key press as Ink's `useInput` reports it (its `Key`), declared here so this logic does not
 * depend on Ink: every field optional, so tests can write `{ ctrl: true }`.
 */
export interface KeyPress {
  upArrow?: boolean;
  downArrow?: boolean;
  leftArrow?: boolean;
  rightArrow?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  home?: boolean;
  end?: boolean;
  return?: boolean;
  escape?: boolean;
  ctrl?: boolean;
  shift?: boolean;
  tab?: boolean;
  backspace?: boolean;
  delete?: boolean;
  meta?: boolean;
  /** Only with the kitty keyboard protocol. */
  super?: boolean;
  /** Only with the kitty keyboard protocol; releases are not presses. */
  eventType?: 'press' | 'repeat' | 'release';
}

const NAMED: [keyof KeyPress, string][] = [
  ['upArrow', 'up'],
  ['downArrow', 'down'],
  ['leftArrow', 'left'],
  ['rightArrow', 'right'],
  ['pageUp', 'pageup'],
  ['pageDown', 'pagedown'],
  ['home', 'home'],
  ['end', 'end'],
  ['return', 'return'],
  ['escape', 'escape'],
  ['tab', 'tab'],
  ['backspace', 'backspace'],
  ['delete', 'delete'],
];

/**
 * The stroke name of an Ink key press (`ctrl+x`, `shift+tab`, `alt+return`, `escape`, `left`,
 * `a`, `A`, `?`), in the form keybinds are parsed to (key-combo.ts), or undefined when it is not
 * one key: a paste, or a kitty key release. What Ink 6 reports shapes this:
 * - Escape comes with `meta` set, so `alt+escape` cannot be told from `escape`;
 * - Ctrl+J arrives as the input `\n` with no flag;
 * - Shift+Enter and Ctrl+Enter send plain `\r` (so `return`) unless the terminal speaks the kitty
 *   protocol or is set up to send something else; Alt+Enter (`\x1b\r`) is `alt+return`;
 * - the Backspace key of most terminals (`\x7f`) comes as `delete`, exactly as the Delete key
 *   does; Ink's `backspace` is `\b`, which is Ctrl+H on most terminals. The prompt should take
 *   both as Backspace.
 */
export function keyNameOf(input: string, key: KeyPress): string | undefined {
  if (key.eventType === 'release') return undefined;
  const modifiers = { ctrl: key.ctrl, alt: key.meta, super: key.super, shift: key.shift };
  const named = NAMED.find(([flag]) => key[flag] === true)?.[1];
  if (named === 'escape') return strokeName({ ...modifiers, alt: false, name: named });
  if (named) return strokeName({ ...modifiers, name: named });
  if (input === '\n') return strokeName({ ...modifiers, ctrl: true, name: 'j' });
  if (input === ' ') return strokeName({ ...modifiers, name: 'space' });
  if (!isOneCharacter(input)) return undefined;
  return strokeName({ ...modifiers, name: input });
}

function isOneCharacter(input: string): boolean {
  if (!input || clusterEnd(input, 0) !== input.length) return false;
  const code = input.codePointAt(0)!;
  return code >= 0x20 && code !== 0x7f && !(code >= 0x80 && code < 0xa0);
}
