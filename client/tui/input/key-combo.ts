import { closestName } from '../../../core/text/closest-name.js';

/**
 * OpenCode's keybind value syntax: `"ctrl+c,ctrl+d,<leader>q"` is three alternatives; each is
 * modifiers (`ctrl`, `alt`/`meta`/`option`, `shift`, `super`) and a key joined by `+`, after an
 * optional `<leader>`; `esc` is `escape`, `enter` is `return` (and `del`, `pgup`, `pgdn` as they
 * read); `"none"` (or `false`) binds nothing.
 */

/** One way to trigger an action: a key (a stroke name, see `strokeName`), after the leader or not. */
export interface KeyCombo {
  readonly leader: boolean;
  readonly stroke: string;
}

/** A key with its modifiers, before it is named. */
export interface Stroke {
  name: string;
  ctrl?: boolean;
  alt?: boolean;
  super?: boolean;
  shift?: boolean;
}

/** Keys with names; any other single printable character names itself (`a`, `?`, `-`). */
export const NAMED_KEYS: readonly string[] = [
  'return',
  'escape',
  'tab',
  'space',
  'backspace',
  'delete',
  'insert',
  'up',
  'down',
  'left',
  'right',
  'home',
  'end',
  'pageup',
  'pagedown',
  ...Array.from({ length: 24 }, (_, index) => `f${index + 1}`),
];

const ALIASES = new Map([
  ['esc', 'escape'],
  ['enter', 'return'],
  ['del', 'delete'],
  ['pgup', 'pageup'],
  ['pgdn', 'pagedown'],
  ['pgdown', 'pagedown'],
]);
const MODIFIERS = new Map<string, keyof Omit<Stroke, 'name'>>([
  ['ctrl', 'ctrl'],
  ['alt', 'alt'],
  ['meta', 'alt'],
  ['option', 'alt'],
  ['shift', 'shift'],
  ['super', 'super'],
]);
const LEADER = '<leader>';

/**
 * The one name of a stroke, as keybinds and key presses are compared: modifiers in the order
 * ctrl, alt, super, shift, then the key. Shift with a letter and no ctrl is the capital letter
 * (`shift+a` is `A`, which is what the terminal sends); with a punctuation key it is dropped (the
 * character already says it: `?`, not `shift+/`).
 */
export function strokeName(stroke: Stroke): string {
  let { name, shift } = stroke;
  if (name.length === 1) {
    const letter = /^[a-z]$/i.test(name);
    if (letter && !stroke.ctrl) {
      name = shift || name !== name.toLowerCase() ? name.toUpperCase() : name;
      shift = false;
    } else if (letter) {
      name = name.toLowerCase();
    } else {
      shift = false;
    }
  }
  const parts = [stroke.ctrl && 'ctrl', stroke.alt && 'alt', stroke.super && 'super', shift && 'shift', name];
  return parts.filter(Boolean).join('+');
}

/** The combos a keybind value stands for, or the reason it is not one (to be shown after the key's name). */
export function parseKeybindValue(value: string | false): { combos: KeyCombo[] } | { problem: string } {
  if (value === false || value.trim().toLowerCase() === 'none') return { combos: [] };
  const combos: KeyCombo[] = [];
  for (const alternative of value.split(',')) {
    const parsed = parseAlternative(alternative.trim());
    if ('problem' in parsed) return parsed;
    combos.push(parsed.combo);
  }
  return { combos };
}

function parseAlternative(text: string): { combo: KeyCombo } | { problem: string } {
  const shown = JSON.stringify(text);
  if (!text) return { problem: `an empty key between commas; separate keys with one comma, as in "ctrl+c,ctrl+d"` };
  if (text.toLowerCase() === 'none')
    return { problem: `"none" binds nothing, so it stands alone, not among other keys` };
  const leader = text.toLowerCase().startsWith(LEADER);
  const rest = leader ? text.slice(LEADER.length).trim() : text;
  if (rest.toLowerCase().includes(LEADER))
    return { problem: `${shown} is not a key; <leader> goes first, once, as in "<leader>n"` };
  if (!rest) return { problem: `${shown} is not a key; name the key to press after the leader, as in "<leader>n"` };
  // `+` as the key itself: `ctrl++`, or `+` alone.
  const parts = rest === '+' ? ['+'] : rest.endsWith('++') ? [...rest.slice(0, -2).split('+'), '+'] : rest.split('+');
  const stroke: Stroke = { name: '' };
  for (const [index, raw] of parts.entries()) {
    const part = raw.trim();
    const last = index === parts.length - 1;
    const modifier = MODIFIERS.get(part.toLowerCase());
    if (!last) {
      if (!modifier) return { problem: `${shown} is not a key; ${notModifier(part)}` };
      stroke[modifier] = true;
    } else {
      const name = keyName(part);
      if (name === undefined) return { problem: `${shown} is not a key; ${notKeyName(part, parts.length === 1)}` };
      stroke.name = name;
    }
  }
  return { combo: { leader, stroke: strokeName(stroke) } };
}

/** The key's canonical name, or undefined when `part` names no key. */
function keyName(part: string): string | undefined {
  if (!part) return undefined;
  if ([...part].length === 1) return /\s/.test(part) ? undefined : part;
  const lower = part.toLowerCase();
  const name = ALIASES.get(lower) ?? lower;
  return NAMED_KEYS.includes(name) ? name : undefined;
}

function notModifier(part: string): string {
  const known = [...MODIFIERS.keys()];
  const meant = closestName(part, known);
  return `"${part}" is not a modifier (${known.join(', ')})${meant ? `; did you mean "${meant}"?` : ''}`;
}

function notKeyName(part: string, alone: boolean): string {
  if (!part) return 'name a key after the modifiers, as in "ctrl+x"';
  if (MODIFIERS.has(part.toLowerCase())) return `"${part}" is a modifier; name a key after it, as in "${part}+x"`;
  const meant = closestName(part.toLowerCase(), [...NAMED_KEYS, ...ALIASES.keys()]);
  const what = alone ? '' : `"${part}" is not a key name; `;
  if (meant) return `${what}did you mean "${ALIASES.get(meant) ?? meant}"?`;
  return `${what}a key is a character such as "x", or one of ${NAMED_KEYS.slice(0, 15).join(', ')}, f1…f24`;
}
