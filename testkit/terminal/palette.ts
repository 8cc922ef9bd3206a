import type { TerminalColour } from './sgr.js';

export type Rgb = readonly [red: number, green: number, blue: number];

/** The screenshot's theme: a dark background, and the 16 base colours softened a little from xterm's raw ones. */
export const THEME = {
  background: [0x17, 0x19, 0x1f],
  foreground: [0xd5, 0xd8, 0xde],
  base: [
    [0x2c, 0x2f, 0x37], // black
    [0xe2, 0x67, 0x6c], // red
    [0x8d, 0xc4, 0x6f], // green
    [0xe6, 0xc2, 0x6b], // yellow
    [0x62, 0xa6, 0xe6], // blue
    [0xc4, 0x86, 0xdd], // magenta
    [0x52, 0xc2, 0xc6], // cyan
    [0xc8, 0xcb, 0xd2], // white
    [0x5e, 0x64, 0x71], // bright black
    [0xff, 0x84, 0x88], // bright red
    [0xac, 0xdd, 0x8c], // bright green
    [0xff, 0xda, 0x8b], // bright yellow
    [0x8a, 0xc2, 0xfd], // bright blue
    [0xde, 0xa6, 0xf4], // bright magenta
    [0x7a, 0xdf, 0xe2], // bright cyan
    [0xf3, 0xf4, 0xf7], // bright white
  ],
} as const satisfies { background: Rgb; foreground: Rgb; base: readonly Rgb[] };

/** xterm's colour cube steps for indexes 16–231. */
const CUBE_STEPS = [0, 95, 135, 175, 215, 255];

/** The RGB of a colour; `fallback` stands for the terminal's default (foreground or background). */
export function resolveColour(colour: TerminalColour, fallback: Rgb): Rgb {
  if (colour.kind === 'default') return fallback;
  if (colour.kind === 'rgb') return [colour.red, colour.green, colour.blue];
  const index = colour.index;
  if (index < 16) return THEME.base[index];
  if (index < 232) {
    const cube = index - 16;
    return [CUBE_STEPS[Math.floor(cube / 36)], CUBE_STEPS[Math.floor(cube / 6) % 6], CUBE_STEPS[cube % 6]];
  }
  const grey = 8 + (index - 232) * 10;
  return [grey, grey, grey];
}

/** `colour` moved `amount` (0–1) of the way towards `towards`: how dim text fades into its background. */
export function blend(colour: Rgb, towards: Rgb, amount: number): Rgb {
  return [0, 1, 2].map((channel) =>
    Math.round(colour[channel] + (towards[channel] - colour[channel]) * amount),
  ) as unknown as Rgb;
}

export function cssColour([red, green, blue]: Rgb): string {
  return `#${[red, green, blue].map((channel) => channel.toString(16).padStart(2, '0')).join('')}`;
}
