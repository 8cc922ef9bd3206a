import { keyNameOf, type KeyPress } from './key-event.js';
import { KEYBIND_NAMES, type KeybindName, type Keybinds } from './keybinds.js';

/** How long the leader waits for its second key, as in OpenCode. */
export const LEADER_TIMEOUT_MS = 2000;

/** What a key press means to the keybinds. */
export interface KeyResolution {
  /** The action the key (after the leader, or alone) is bound to: the first of `actions`. */
  action?: KeybindName;
  /**
   * Every action bound to it, in `KEYBIND_NAMES` order: a caller that has an action switched off
   * where the user is (the child keys outside a subagent's session) takes the next.
   */
  actions: KeybindName[];
  /** The leader was pressed and waits for a second key (the prompt can dim meanwhile). */
  leaderPending: boolean;
  /**
   * The press was the keybinds' (the leader, the key after it, or a bound key) and should not
   * reach the prompt as typing. A key after the leader that is bound to nothing is swallowed too.
   */
  consumed: boolean;
}

/**
 * Turns key presses into actions, holding the leader between two presses: the leader, then a key
 * within `timeoutMs`, is a leader combo; after that the leader has lapsed and the key counts alone.
 * `now` is passed in (milliseconds) so tests and the component share one clock.
 */
export class KeyResolver {
  private leaderAt: number | undefined;
  private readonly direct = new Map<string, KeybindName[]>();
  private readonly afterLeader = new Map<string, KeybindName[]>();

  constructor(
    private readonly keybinds: Keybinds,
    private readonly timeoutMs = LEADER_TIMEOUT_MS,
  ) {
    for (const name of KEYBIND_NAMES) {
      for (const combo of keybinds.actions[name]) {
        const table = combo.leader ? this.afterLeader : this.direct;
        const bound = table.get(combo.stroke) ?? [];
        if (!bound.includes(name)) table.set(combo.stroke, [...bound, name]);
      }
    }
  }

  /** What the press `(input, key)` from Ink's `useInput` means at `now`. */
  press(input: string, key: KeyPress, now: number = Date.now()): KeyResolution {
    const stroke = keyNameOf(input, key);
    const afterLeader = this.isLeaderPending(now);
    this.leaderAt = undefined;
    if (stroke === undefined) return { actions: [], leaderPending: false, consumed: false };
    if (afterLeader) return resolution(this.afterLeader.get(stroke) ?? [], true);
    if (this.keybinds.leader.includes(stroke)) {
      this.leaderAt = now;
      return { actions: [], leaderPending: true, consumed: true };
    }
    const actions = this.direct.get(stroke) ?? [];
    return resolution(actions, actions.length > 0);
  }

  /** Whether the leader was pressed less than the timeout before `now` and waits for its key. */
  isLeaderPending(now: number = Date.now()): boolean {
    return this.leaderAt !== undefined && now - this.leaderAt < this.timeoutMs;
  }

  /** Forgets a pending leader (a dialog opened, the prompt lost focus). */
  cancelLeader(): void {
    this.leaderAt = undefined;
  }
}

function resolution(actions: KeybindName[], consumed: boolean): KeyResolution {
  return { action: actions[0], actions, leaderPending: false, consumed };
}
