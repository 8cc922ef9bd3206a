import type { Key } from 'ink';

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

/**
 * Ink hands on what one read of the terminal brought as one event when it holds no escape
 * sequence, so keys typed faster than they are read (or sent together by a program: Ctrl+X then
 * N) come as one string. This splits such a string back into its keys, runs of plain text kept
 * together; a string with no control characters is one event, as Ink gave it.
 */
export function splitKeys(input: string, key: Key): [string, Key][] {
  // eslint-disable-next-line no-control-regex
  if (input.length < 2 || !/[\x00-\x1f\x7f]/.test(input)) return [[input, key]];
  // Several lines at once, and nothing else but text, is a paste the terminal did not mark: lines, not sends.
  // eslint-disable-next-line no-control-regex
  if ((input.match(/\r\n?|\n/g) ?? []).length > 1 && !/[\x00-\x09\x0b\x0c\x0e-\x1f\x7f]/.test(input))
    return [[input.replace(/\r\n?/g, '\n'), NO_KEY]];
  const keys: [string, Key][] = [];
  let text = '';
  const flush = () => {
    if (text) keys.push([text, NO_KEY]);
    text = '';
  };
  for (const character of input) {
    const code = character.charCodeAt(0);
    if (code >= 0x20 && code !== 0x7f) {
      text += character;
      continue;
    }
    flush();
    if (character === '\r') keys.push(['\r', { ...NO_KEY, return: true }]);
    else if (character === '\t') keys.push(['', { ...NO_KEY, tab: true }]);
    else if (code === 0x7f || code === 0x08) keys.push(['', { ...NO_KEY, delete: true }]);
    else if (code >= 1 && code <= 26) keys.push([String.fromCharCode(code + 96), { ...NO_KEY, ctrl: true }]);
  }
  flush();
  return keys;
}
