import type { BusEvent } from '../../core/records/bus-events.js';

/**
 * OpenCode's plugin shapes, as far as Loom supports them: a plugin module exports functions
 * `(input) => Promise<Hooks>`; a hook is `(input, output) => Promise<void>` and changes `output`.
 */

/** What a plugin's initialiser gets. `$` (Bun's shell) and `client` (the OpenCode SDK) are not provided yet. */
export interface PluginInput {
  directory: string;
  worktree: string;
  project: { id: string };
  $: undefined;
  client: undefined;
}

export interface ToolCallInput {
  tool: string;
  sessionID: string;
  callID: string;
}

export interface Hooks {
  /** May change `output.args` (validated again against the tool's parameters) or throw to block the call. */
  'tool.execute.before'?: (input: ToolCallInput, output: { args: Record<string, unknown> }) => Promise<void> | void;
  /** May change what the model sees of the result. */
  'tool.execute.after'?: (
    input: ToolCallInput & { args: Record<string, unknown> },
    output: { title: string; output: string; metadata: Record<string, unknown> },
  ) => Promise<void> | void;
  /** May add variables to the environment of the processes tools start. */
  'shell.env'?: (input: { cwd: string }, output: { env: Record<string, string> }) => Promise<void> | void;
  /** May set sampling parameters and provider options of a model call. */
  'chat.params'?: (input: ChatParamsInput, output: ChatParams) => Promise<void> | void;
  /** May answer a permission request before a person is asked: `allow` or `deny` (default `ask`). */
  'permission.ask'?: (input: PluginPermission, output: { status: PermissionStatus }) => Promise<void> | void;
  /** Sees every event of the store's feed, as `loom serve`'s `GET /event` sends it; its changes are ignored. */
  event?: (input: { event: BusEvent }) => Promise<void> | void;
}

export type HookName = keyof Hooks;
export const HOOK_NAMES: readonly HookName[] = [
  'tool.execute.before',
  'tool.execute.after',
  'shell.env',
  'chat.params',
  'permission.ask',
  'event',
];

export type PermissionStatus = 'ask' | 'deny' | 'allow';

/**
 * A permission request as OpenCode's plugins see it: its old `Permission` fields (`type`, `pattern`,
 * `title`, `metadata`) and its newer ones (`permission`, `patterns`, `always`).
 */
export interface PluginPermission {
  id: string;
  type: string;
  permission: string;
  pattern: string | string[];
  patterns: string[];
  always: string[];
  sessionID: string;
  messageID: string;
  callID: string;
  title: string;
  metadata: { tool: string; agent: string; reason?: string };
  time: { created: number };
}

export interface ChatParamsInput {
  sessionID: string;
  agent: string;
  model: { id: string; providerID: string };
  provider: { id: string };
}

export interface ChatParams {
  temperature?: number;
  topP?: number;
  topK?: number;
  options: Record<string, unknown>;
}

/** One initialised plugin: an exported function of a module, and the hooks it returned. */
export interface LoadedPlugin {
  /** The module (relative to the project when inside it), and the export when not `default`: named in errors. */
  name: string;
  hooks: Hooks;
}

/** The plugins of one project on this worker, with the time each hook may take. */
export interface Plugins {
  list: LoadedPlugin[];
  timeoutMs: number;
}

/** A plugin that cannot be loaded, or whose hook threw or hung. The message names the plugin. */
export class PluginError extends Error {
  override name = 'PluginError';
}
