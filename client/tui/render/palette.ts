import pc from 'picocolors';

/** Something that paints text for the terminal: wraps it in ANSI codes, or leaves it as it is. */
export type Style = (text: string) => string;

/**
 * Colours that are always on. Picocolors' default turns them off when stdout is not a TTY; whether
 * the terminal gets colour is the terminal UI's decision, made once, not each renderer's.
 */
export const color = pc.createColors(true);

/** The style that leaves text as it is. */
export const unstyled: Style = (text) => text;

/** `outer` applied over `inner`: bold inside a link, code inside a heading. */
export function combine(outer: Style, inner: Style): Style {
  if (outer === unstyled) return inner;
  if (inner === unstyled) return outer;
  return (text) => outer(inner(text));
}
