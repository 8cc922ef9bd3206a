import type { Budget } from '../runs/budget.js';
import type { Ruleset } from '../rules/permission.js';

export type AgentMode = 'primary' | 'subagent' | 'all';

/** An agent as a run uses it: built in or from config, with its whole permission ruleset. */
export interface AgentInfo {
  name: string;
  description?: string;
  mode: AgentMode;
  /** Built into Loom (config may still change it). */
  native: boolean;
  /** Left out of `@` menus; still usable. */
  hidden?: boolean;
  /** The system prompt; Loom's default prompt is used when unset. */
  prompt?: string;
  /** `provider/model`; the session's model is used when unset. */
  model?: string;
  variant?: string;
  temperature?: number;
  topP?: number;
  /** The most loop iterations per prompt. */
  steps?: number;
  /** Milliseconds each of its runs as a subagent may take before it is cancelled. */
  timeout?: number;
  /** A budget for each of its sessions as a subagent (its subtree's spend). */
  limits?: Budget;
  color?: string;
  permission: Ruleset;
  /** Provider options passed through to the model call. */
  options: Record<string, unknown>;
}
