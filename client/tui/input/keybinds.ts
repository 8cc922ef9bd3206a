import { closestName } from '../../../core/text/closest-name.js';
import { parseKeybindValue, type KeyCombo } from './key-combo.js';

/**
 * The TUI's keybinds, configured as in OpenCode (`keybinds` in loom.json or opencode.json): names
 * and value syntax are OpenCode's (see key-combo.ts), and so are the defaults, except that moving
 * between a session and its subagents' sessions takes the leader (`<leader>right`, not `right`),
 * since Loom's child view keeps arrow keys for the prompt.
 */
export const KEYBIND_DEFAULTS = {
  leader: 'ctrl+x',
  app_exit: 'ctrl+c,ctrl+d,<leader>q',
  session_new: '<leader>n',
  session_list: '<leader>l',
  session_interrupt: 'escape',
  session_compact: '<leader>c',
  session_export: '<leader>x',
  session_fork: 'none',
  agent_list: '<leader>a',
  session_child_first: '<leader>down',
  session_child_cycle: '<leader>right',
  session_child_cycle_reverse: '<leader>left',
  session_parent: '<leader>up',
  status_view: '<leader>s',
  messages_undo: '<leader>u',
  messages_redo: '<leader>r',
  messages_page_up: 'pageup',
  messages_page_down: 'pagedown',
  model_list: '<leader>m',
  agent_cycle: 'tab',
  agent_cycle_reverse: 'shift+tab',
  command_list: 'ctrl+p',
  // Loom binds these two (OpenCode leaves them unbound): the details of tool calls, and the model's thinking.
  tool_details: 'ctrl+o',
  display_thinking: 'ctrl+t',
  input_submit: 'return',
  input_newline: 'shift+return,ctrl+return,alt+return,ctrl+j',
} as const;

/** An action a key can be bound to (every keybind name but `leader`). */
export type KeybindName = Exclude<keyof typeof KEYBIND_DEFAULTS, 'leader'>;

/** Every action, in the order a key bound to several reports them. */
export const KEYBIND_NAMES = Object.keys(KEYBIND_DEFAULTS).filter((name) => name !== 'leader') as KeybindName[];

/**
 * Keybind names of OpenCode's (1.2 and some later or earlier ones) that Loom does not implement:
 * accepted and ignored, so a real opencode.json's `keybinds` loads.
 */
export const OPENCODE_ONLY_KEYBINDS: readonly string[] = [
  ...['editor_open', 'theme_list', 'sidebar_toggle', 'scrollbar_toggle', 'username_toggle', 'tips_toggle'],
  ...['session_timeline', 'session_rename', 'session_delete', 'session_share', 'session_unshare'],
  ...['stash_delete', 'model_provider_list', 'model_favorite_toggle', 'variant_cycle'],
  ...['model_cycle_recent', 'model_cycle_recent_reverse', 'model_cycle_favorite', 'model_cycle_favorite_reverse'],
  ...['messages_half_page_up', 'messages_half_page_down', 'messages_line_up', 'messages_line_down'],
  ...['messages_first', 'messages_last', 'messages_next', 'messages_previous', 'messages_last_user'],
  ...['messages_copy', 'messages_toggle_conceal', 'messages_layout_toggle', 'messages_revert'],
  ...['input_clear', 'input_paste', 'input_undo', 'input_redo', 'input_backspace', 'input_delete'],
  ...['input_move_left', 'input_move_right', 'input_move_up', 'input_move_down'],
  ...['input_select_left', 'input_select_right', 'input_select_up', 'input_select_down'],
  ...['input_line_home', 'input_line_end', 'input_select_line_home', 'input_select_line_end'],
  ...['input_visual_line_home', 'input_visual_line_end'],
  ...['input_select_visual_line_home', 'input_select_visual_line_end'],
  ...['input_buffer_home', 'input_buffer_end', 'input_select_buffer_home', 'input_select_buffer_end'],
  ...['input_delete_line', 'input_delete_to_line_end', 'input_delete_to_line_start'],
  ...['input_word_forward', 'input_word_backward', 'input_select_word_forward', 'input_select_word_backward'],
  ...['input_delete_word_forward', 'input_delete_word_backward', 'history_previous', 'history_next'],
  ...['terminal_suspend', 'terminal_title_toggle', 'session_queued_prompts', 'session_background'],
  ...['session_pin_toggle', 'which_key_toggle', 'help_show', 'diff_open', 'app_debug', 'app_console'],
  ...Array.from({ length: 9 }, (_, index) => `session_quick_switch_${index + 1}`),
  ...['app_help', 'project_init', 'switch_agent', 'switch_agent_reverse', 'switch_mode', 'switch_mode_reverse'],
  ...['file_list', 'file_close', 'file_search', 'file_diff_toggle'],
];

/** A `keybinds` object as written in a config file. */
export type KeybindsConfig = Readonly<Record<string, string | false>>;

/** The keybinds in force: the leader's keys and each action's combos. */
export interface Keybinds {
  readonly leader: readonly string[];
  readonly actions: Readonly<Record<KeybindName, readonly KeyCombo[]>>;
}

const KNOWN = Object.keys(KEYBIND_DEFAULTS);

/**
 * What is wrong with one file's `keybinds`, a line each naming `label` (the file) and the key:
 * `keybinds.session_parent in /x/loom.json: "ctrl+" is not a key; …`. Values of OpenCode's names
 * that Loom ignores are not checked.
 */
export function keybindProblems(keybinds: KeybindsConfig, label: string): string[] {
  const problems: string[] = [];
  for (const [name, value] of Object.entries(keybinds)) {
    const where = `keybinds.${name} in ${label}`;
    if (OPENCODE_ONLY_KEYBINDS.includes(name)) continue;
    if (!KNOWN.includes(name)) {
      const meant = closestName(name, KNOWN) ?? closestName(name, OPENCODE_ONLY_KEYBINDS);
      problems.push(
        `${where}: no such keybind; ${meant ? `did you mean "${meant}"?` : `Loom's are ${KNOWN.join(', ')}`}`,
      );
      continue;
    }
    const parsed = parseKeybindValue(value);
    if ('problem' in parsed) problems.push(`${where}: ${parsed.problem}`);
    else if (name === 'leader' && parsed.combos.some((combo) => combo.leader))
      problems.push(`${where}: the leader cannot itself start with <leader>`);
  }
  return problems;
}

/**
 * The defaults with `overrides` (merged `keybinds` of every config file) applied. Throws on a
 * value `keybindProblems` would report: check each file with it first, for errors that name it.
 */
export function resolveKeybinds(overrides: KeybindsConfig = {}): Keybinds {
  const combosOf = (name: keyof typeof KEYBIND_DEFAULTS): KeyCombo[] => {
    const value = Object.hasOwn(overrides, name) ? overrides[name] : KEYBIND_DEFAULTS[name];
    const parsed = parseKeybindValue(value);
    if ('problem' in parsed) throw new Error(`keybinds.${name}: ${parsed.problem}`);
    return parsed.combos;
  };
  const actions = {} as Record<KeybindName, KeyCombo[]>;
  for (const name of KEYBIND_NAMES) actions[name] = combosOf(name);
  return { leader: combosOf('leader').map((combo) => combo.stroke), actions };
}

/** How to show an action's keys to a person: `ctrl+x n`, alternatives joined by `, `; '' when unbound. */
export function keybindLabel(keybinds: Keybinds, action: KeybindName): string {
  const leader = keybinds.leader[0];
  return keybinds.actions[action]
    .filter((combo) => !combo.leader || leader)
    .map((combo) => (combo.leader ? `${leader} ${combo.stroke}` : combo.stroke))
    .join(', ');
}
