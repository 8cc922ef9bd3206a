import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Key } from 'ink';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../../activities/config/load.js';
import { parseKeybindValue } from '../../../client/tui/input/key-combo.js';
import { keyNameOf, type KeyPress } from '../../../client/tui/input/key-event.js';
import { KeyResolver, LEADER_TIMEOUT_MS } from '../../../client/tui/input/key-resolver.js';
import { loadKeybinds } from '../../../client/tui/input/keybind-config.js';
import {
  keybindLabel,
  keybindProblems,
  resolveKeybinds,
  type KeybindsConfig,
} from '../../../client/tui/input/keybinds.js';

/** A few presses as Ink 6's `useInput` reports them in a terminal without the kitty protocol. */
const ink = {
  ctrlX: ['x', { ctrl: true }],
  ctrlC: ['c', { ctrl: true }],
  ctrlJ: ['\n', {}],
  right: ['', { rightArrow: true }],
  up: ['', { upArrow: true }],
  escape: ['', { escape: true, meta: true }],
  enter: ['\r', { return: true }],
  altEnter: ['\r', { return: true, meta: true }],
  tab: ['', { tab: true }],
  shiftTab: ['', { tab: true, shift: true }],
  q: ['q', {}],
  n: ['n', {}],
  capitalA: ['A', { shift: true }],
} satisfies Record<string, [string, KeyPress]>;

const resolverWith = (config: KeybindsConfig = {}) => new KeyResolver(resolveKeybinds(config));

describe('the default keybinds', () => {
  const keybinds = resolveKeybinds();

  it("are OpenCode's, with the leader ctrl+x (and ctrl+o, ctrl+t for details and thinking)", () => {
    expect(keybindLabel(keybinds, 'app_exit')).toBe('ctrl+c, ctrl+d, ctrl+x q');
    expect(keybindLabel(keybinds, 'session_new')).toBe('ctrl+x n');
    expect(keybindLabel(keybinds, 'input_newline')).toBe('shift+return, ctrl+return, alt+return, ctrl+j');
    expect(keybindLabel(keybinds, 'agent_cycle_reverse')).toBe('shift+tab');
    expect(keybindLabel(keybinds, 'tool_details')).toBe('ctrl+o');
    expect(keybindLabel(keybinds, 'display_thinking')).toBe('ctrl+t');
  });

  it('move between a session and its subagents with the leader and an arrow', () => {
    expect(keybindLabel(keybinds, 'session_child_first')).toBe('ctrl+x down');
    expect(keybindLabel(keybinds, 'session_child_cycle')).toBe('ctrl+x right');
    expect(keybindLabel(keybinds, 'session_child_cycle_reverse')).toBe('ctrl+x left');
    expect(keybindLabel(keybinds, 'session_parent')).toBe('ctrl+x up');
  });
});

describe('keybind values', () => {
  it('read alternatives, modifiers in any order and spelling, aliases and the leader', () => {
    expect(parseKeybindValue('ctrl+c,ctrl+d,<leader>q')).toEqual({
      combos: [
        { leader: false, stroke: 'ctrl+c' },
        { leader: false, stroke: 'ctrl+d' },
        { leader: true, stroke: 'q' },
      ],
    });
    const same = (value: string) => parseKeybindValue(value);
    expect(same('Shift+Meta+Return')).toEqual(same('alt+shift+return'));
    expect(same('option+enter')).toEqual(same('alt+return'));
    expect(same('esc')).toEqual(same('escape'));
    expect(same('shift+a')).toEqual(same('A'));
    expect(same('ctrl+A')).toEqual(same('ctrl+a'));
    expect(same('ctrl++')).toEqual({ combos: [{ leader: false, stroke: 'ctrl++' }] });
  });

  it('"none" and false bind nothing', () => {
    expect(parseKeybindValue('none')).toEqual({ combos: [] });
    expect(parseKeybindValue(false)).toEqual({ combos: [] });
    const keybinds = resolveKeybinds({ app_exit: 'none' });
    expect(resolverWith({ app_exit: 'none' }).press(...ink.ctrlC, 0).action).toBeUndefined();
    expect(keybindLabel(keybinds, 'app_exit')).toBe('');
  });
});

describe('keybind problems', () => {
  const problems = (keybinds: KeybindsConfig) => keybindProblems(keybinds, '/x/loom.json');

  it('name the file, the key and what is wrong with the value', () => {
    expect(problems({ session_parent: 'ctrl+' })).toEqual([
      'keybinds.session_parent in /x/loom.json: "ctrl+" is not a key; name a key after the modifiers, as in "ctrl+x"',
    ]);
    expect(problems({ session_new: 'ctl+n' })[0]).toContain(
      'keybinds.session_new in /x/loom.json: "ctl+n" is not a key; "ctl" is not a modifier (ctrl, alt, meta, option, shift, super); did you mean "ctrl"?',
    );
    expect(problems({ session_interrupt: 'escp' })[0]).toContain('"escp" is not a key; did you mean "escape"?');
    expect(problems({ session_interrupt: 'ctrl+pagup' })[0]).toContain(
      '"ctrl+pagup" is not a key; "pagup" is not a key name; did you mean "pageup"?',
    );
    expect(problems({ session_interrupt: 'ctrl+banana' })[0]).toContain('a key is a character such as "x", or one of');
    expect(problems({ model_list: 'ctrl+x,,m' })[0]).toContain('an empty key between commas');
    expect(problems({ model_list: 'm<leader>' })[0]).toContain('<leader> goes first');
    expect(problems({ leader: '<leader>x' })[0]).toContain('the leader cannot itself start with <leader>');
  });

  it('refuse an unknown keybind, naming the one it likely meant', () => {
    expect(problems({ session_parnet: '<leader>up' })).toEqual([
      'keybinds.session_parnet in /x/loom.json: no such keybind; did you mean "session_parent"?',
    ]);
    expect(problems({ colour_scheme: 'x' })[0]).toContain("no such keybind; Loom's are leader, app_exit,");
  });

  it("accept and ignore OpenCode's keybinds that Loom does not implement", () => {
    expect(problems({ editor_open: '<leader>e', input_move_left: 'left,ctrl+b', theme_list: 'whatever+' })).toEqual([]);
  });
});

describe('key presses from Ink', () => {
  it("take Ink's own Key as it is", () => {
    const fromInk: Key = { ...({} as Key), ctrl: true, upArrow: false };
    const press: KeyPress = fromInk;
    expect(keyNameOf('x', press)).toBe('ctrl+x');
  });

  it.each<[string, KeyPress, string | undefined]>([
    ['a', {}, 'a'],
    ['A', { shift: true }, 'A'],
    ['?', { shift: true }, '?'],
    ['x', { ctrl: true }, 'ctrl+x'],
    ['b', { meta: true }, 'alt+b'],
    ['', { tab: true, shift: true }, 'shift+tab'],
    ['\r', { return: true }, 'return'],
    ['\r', { return: true, meta: true }, 'alt+return'],
    ['\r', { return: true, shift: true }, 'shift+return'],
    ['\n', {}, 'ctrl+j'],
    ['', { escape: true, meta: true }, 'escape'],
    ['', { leftArrow: true }, 'left'],
    ['', { rightArrow: true, ctrl: true }, 'ctrl+right'],
    ['', { pageUp: true }, 'pageup'],
    [' ', {}, 'space'],
    ['👍🏽', {}, '👍🏽'],
    ['pasted text', {}, undefined],
    ['a', { eventType: 'release' }, undefined],
  ])('%j %j is %s', (input, key, name) => {
    expect(keyNameOf(input, key)).toBe(name);
  });
});

describe('KeyResolver', () => {
  it('gives session_child_cycle for <leader> then → within 2 s, and nothing after 2 s', () => {
    const resolver = resolverWith();
    expect(resolver.press(...ink.ctrlX, 1000)).toEqual({ actions: [], leaderPending: true, consumed: true });
    expect(resolver.isLeaderPending(2999)).toBe(true);
    expect(resolver.press(...ink.right, 2999)).toMatchObject({ action: 'session_child_cycle', leaderPending: false });

    resolver.press(...ink.ctrlX, 10_000);
    expect(resolver.isLeaderPending(10_000 + LEADER_TIMEOUT_MS)).toBe(false);
    expect(resolver.press(...ink.right, 10_000 + LEADER_TIMEOUT_MS)).toEqual({
      action: undefined,
      actions: [],
      leaderPending: false,
      consumed: false,
    });
  });

  it('resolves the leader combos and plain keys of the defaults', () => {
    const resolver = resolverWith();
    const after = (key: [string, KeyPress]) => (resolver.press(...ink.ctrlX, 0), resolver.press(...key, 1).action);
    expect(after(ink.up)).toBe('session_parent');
    expect(after(ink.q)).toBe('app_exit');
    expect(after(ink.n)).toBe('session_new');
    expect(resolver.press(...ink.ctrlC, 0).action).toBe('app_exit');
    expect(resolver.press(...ink.escape, 0).action).toBe('session_interrupt');
    expect(resolver.press(...ink.enter, 0).action).toBe('input_submit');
    expect(resolver.press(...ink.altEnter, 0).action).toBe('input_newline');
    expect(resolver.press(...ink.ctrlJ, 0).action).toBe('input_newline');
    expect(resolver.press(...ink.tab, 0).action).toBe('agent_cycle');
    expect(resolver.press(...ink.shiftTab, 0).action).toBe('agent_cycle_reverse');
  });

  it('leaves typing to the prompt, and swallows an unbound key after the leader', () => {
    const resolver = resolverWith();
    expect(resolver.press(...ink.n, 0)).toMatchObject({ action: undefined, consumed: false });
    expect(resolver.press('some pasted text', {}, 0)).toMatchObject({ consumed: false });
    resolver.press(...ink.ctrlX, 0);
    expect(resolver.press(...ink.capitalA, 1)).toMatchObject({ action: undefined, consumed: true });
    expect(resolver.press(...ink.capitalA, 2)).toMatchObject({ consumed: false });
  });

  it('follows the configuration: another leader, a plain arrow, every action bound to a key', () => {
    const resolver = resolverWith({ leader: 'ctrl+g', session_child_cycle: 'right', messages_page_down: 'right' });
    expect(resolver.press(...ink.right, 0)).toMatchObject({
      action: 'session_child_cycle',
      actions: ['session_child_cycle', 'messages_page_down'],
      consumed: true,
    });
    expect(resolver.press(...ink.ctrlX, 0)).toMatchObject({ leaderPending: false, consumed: false });
    expect(resolver.press('g', { ctrl: true }, 0).leaderPending).toBe(true);
    expect(resolver.press(...ink.n, 1).action).toBe('session_new');
  });
});

describe('loadKeybinds', () => {
  let root: string;
  let env: NodeJS.ProcessEnv;
  const write = (folder: string, text: string) => {
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'loom.json'), text);
    return join(folder, 'loom.json');
  };

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'loom-keybinds-'));
    env = { LOOM_CONFIG_DIR: join(root, 'global') };
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("takes each file's keys over the defaults, the project's over the global folder's", () => {
    write(join(root, 'global'), JSON.stringify({ keybinds: { leader: 'ctrl+g', session_new: '<leader>w' } }));
    write(join(root, 'project'), JSON.stringify({ keybinds: { session_new: 'ctrl+n', editor_open: '<leader>e' } }));
    const keybinds = loadKeybinds(join(root, 'project'), env);
    expect(keybindLabel(keybinds, 'session_new')).toBe('ctrl+n');
    expect(keybindLabel(keybinds, 'session_list')).toBe('ctrl+g l');
  });

  it('refuses bad keys, naming the file and the key', () => {
    const file = write(join(root, 'project'), JSON.stringify({ keybinds: { session_parent: 'ctrl+' } }));
    expect(() => loadKeybinds(join(root, 'project'), env)).toThrow(ConfigError);
    expect(() => loadKeybinds(join(root, 'project'), env)).toThrow(
      `keybinds.session_parent in ${file}: "ctrl+" is not a key;`,
    );
  });
});
