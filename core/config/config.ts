import { z } from 'zod';
import { McpServerConfig } from './mcp-config.js';
import { MODEL_ID_FORM } from '../models/model-id.js';
import { PermissionConfigSchema } from './permission-config.js';
import { SandboxConfig } from './sandbox-config.js';
import { ShellEnvConfig } from '../rules/shell-env.js';

/** `provider/model`, checked here so a typo is reported with its file and key at load time. */
const ModelId = z.string().regex(/^[^/\s]+\/\S+$/, {
  error: (issue) => `Invalid model ${JSON.stringify(issue.input)}: expected ${MODEL_ID_FORM}`,
});

/** A provider's rate limits (Loom only): requests and tokens per minute, shared by every worker (docs/configuration.md). */
export const RateLimitConfig = z.strictObject({
  rpm: z.number().int().positive().optional(),
  tpm: z.number().int().positive().optional(),
});
export type RateLimitConfig = z.infer<typeof RateLimitConfig>;

/** A model's window (`context` and `output` go together), and its own rate limits. */
export const ModelLimits = RateLimitConfig.extend({
  context: z.number().int().positive().optional(),
  /** The most the prompt alone may hold, when the model says so. */
  input: z.number().int().positive().optional(),
  output: z.number().int().positive().optional(),
}).refine((limit) => (limit.context === undefined) === (limit.output === undefined), {
  error: 'context and output are given together',
  path: ['context'],
});

export type ModelLimits = z.infer<typeof ModelLimits>;

/** Dollars per million tokens, as OpenCode's model catalogue (models.dev) gives them. */
export const ModelCost = z.looseObject({
  input: z.number().min(0),
  output: z.number().min(0),
  cache_read: z.number().min(0).optional(),
  cache_write: z.number().min(0).optional(),
});
export type ModelCost = z.infer<typeof ModelCost>;

/** The `limits` key of loom.json and of an agent: the budget of each new session it applies to (core/runs/budget.ts). */
export const LimitsConfig = z.strictObject({
  /** Tokens the session and every subagent under it may use in all. */
  max_tokens: z.number().int().positive().optional(),
  /** Dollars they may spend in all; needs prices (`cost`) for every model they use. */
  max_cost: z.number().positive().optional(),
});

/** Milliseconds, or `false` for no limit (as OpenCode's provider timeouts). */
const StreamTimeout = z.union([z.number().int().positive(), z.literal(false)]);

export const ProviderConfig = z.looseObject({
  name: z.string().optional(),
  /** The AI SDK package that speaks the provider's protocol (see activities/model/providers). */
  npm: z.string().optional(),
  /** Variables the API key may come from, first set wins (OpenCode's `env`). */
  env: z.array(z.string()).optional(),
  /** Loom only: requests and tokens per minute on this provider's key, for every model together. */
  limit: RateLimitConfig.optional(),
  options: z
    .looseObject({
      baseURL: z.url().optional(),
      apiKey: z.string().optional(),
      headers: z.record(z.string(), z.string()).optional(),
      /**
       * OpenCode's key: milliseconds a streaming answer may go without a byte before the request is
       * aborted and retried; `false` turns the limit off. Loom's default is 60 000.
       */
      chunkTimeout: StreamTimeout.optional(),
      /** Loom only: the same limit before the answer's first byte (default 300 000), for slow starters. */
      firstChunkTimeout: StreamTimeout.optional(),
      /** Loom only: the default of every model's `tool_call_repair` (see below). */
      tool_call_repair: z.boolean().optional(),
    })
    .optional(),
  models: z
    .record(
      z.string(),
      z.looseObject({
        name: z.string().optional(),
        limit: ModelLimits.optional(),
        /** Whether the model accepts images and PDFs (default: from the catalogue, else false). */
        attachment: z.boolean().optional(),
        cost: ModelCost.optional(),
        /** Provider options for every call to this model (agents' `options` win). */
        options: z.record(z.string(), z.unknown()).optional(),
        /**
         * Loom only: turn tool calls the model wrote as text (`<tool_call>{…}</tool_call>`, a JSON
         * object naming an offered tool) into real calls. Default: on for OpenAI-compatible servers.
         */
        tool_call_repair: z.boolean().optional(),
        /**
         * Loom only: `small` gives the model a short prompt, fewer tools and an example call in each
         * tool's description; `full` the whole of them. Default: `small` when the model's name states
         * 8B parameters or fewer (`qwen2.5-coder-1.5b`), else `full`.
         */
        prompt: z.enum(['full', 'small']).optional(),
      }),
    )
    .optional(),
});
export type ProviderConfig = z.infer<typeof ProviderConfig>;

const agentFields = {
  /** Markdown only: overrides the name taken from the file path. */
  name: z.string().optional(),
  description: z.string().optional(),
  mode: z.enum(['primary', 'subagent', 'all']).optional(),
  model: ModelId.optional(),
  variant: z.string().optional(),
  prompt: z.string().optional(),
  temperature: z.number().optional(),
  top_p: z.number().optional(),
  steps: z.number().int().positive().optional(),
  /** Deprecated alias of `steps`; folded into it. */
  maxSteps: z.number().int().positive().optional(),
  permission: PermissionConfigSchema.optional(),
  /** Deprecated `{tool: enabled}`; kept as written for the agent resolver to turn into permissions. */
  tools: z.record(z.string(), z.boolean()).optional(),
  hidden: z.boolean().optional(),
  color: z.string().optional(),
  disable: z.boolean().optional(),
  options: z.record(z.string(), z.unknown()).optional(),
  /** Loom only: this agent's sandbox, over the project's (see sandbox-config.ts). */
  sandbox: SandboxConfig.optional(),
  /** Loom only: milliseconds each of this agent's runs as a subagent may take; past it the run is cancelled. */
  timeout: z.number().int().positive().optional(),
  /** Loom only: the budget of each session this agent runs as a subagent (see core/runs/budget.ts). */
  limits: LimitsConfig.optional(),
};
const knownAgentKeys = new Set(Object.keys(agentFields));

export type AgentConfig = Omit<z.infer<z.ZodObject<typeof agentFields>>, 'maxSteps'>;

/**
 * An agent in `agent.<name>` or a markdown agent's frontmatter. As in OpenCode, keys Loom does not
 * know (`reasoningEffort`, …) are provider options: they are moved into `options`, where an
 * explicit `options` entry wins. `maxSteps` becomes `steps` (an explicit `steps` wins).
 */
export const AgentConfig = z.looseObject(agentFields).transform((input): AgentConfig => {
  const agent: Record<string, unknown> = {};
  const extra: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (key === 'maxSteps') continue;
    if (knownAgentKeys.has(key)) agent[key] = value;
    else extra[key] = value;
  }
  if (input.steps === undefined && input.maxSteps !== undefined) agent.steps = input.maxSteps;
  if (Object.keys(extra).length > 0) agent.options = { ...extra, ...input.options };
  return agent as AgentConfig;
});

/** A slash command in `command.<name>` or a markdown command (whose body is the template). */
export const CommandConfig = z.object({
  template: z.string(),
  description: z.string().optional(),
  agent: z.string().optional(),
  model: ModelId.optional(),
  /** Force (`true`) or forbid (`false`) running as a child session. */
  subtask: z.boolean().optional(),
});
export type CommandConfig = z.infer<typeof CommandConfig>;

/**
 * Loom's configuration (`loom.json`, or `opencode.json` for compatibility). Top-level keys that
 * only OpenCode reads (`theme`, `lsp`, …) are accepted and ignored so a real opencode.json
 * loads unchanged; loading a file refuses keys neither knows (see config-keys.ts). The legacy
 * `mode.<name>` becomes `agent.<name>` with `mode: 'primary'`; an `agent.<name>` in the same file
 * wins over it.
 */
const LoomConfigObject = z.looseObject({
  $schema: z.string().optional(),
  /** The default model, `provider/model`. */
  model: ModelId.optional(),
  /** The model for small jobs such as titles. */
  small_model: ModelId.optional(),
  default_agent: z.string().optional(),
  provider: z.record(z.string(), ProviderConfig).optional(),
  permission: PermissionConfigSchema.optional(),
  agent: z.record(z.string(), AgentConfig).optional(),
  /** Legacy primary agents; folded into `agent`. */
  mode: z.record(z.string(), AgentConfig).optional(),
  command: z.record(z.string(), CommandConfig).optional(),
  /** Rules files for every agent's system prompt, beside AGENTS.md: paths relative to this file's folder, globs in a path's last part. */
  instructions: z.array(z.string()).optional(),
  /** Legacy `{tool: enabled}` for every agent; kept as written for the permission resolver. */
  tools: z.record(z.string(), z.boolean()).optional(),
  experimental: z.looseObject({ primary_tools: z.array(z.string()).optional() }).optional(),
  /** Loom only: the budget of each new root session: its tokens and cost with every subagent's (see core/runs/budget.ts). */
  limits: LimitsConfig.optional(),
  /** Loom only: identical tool calls in a row that count as a doom loop (OpenCode fixes 3). */
  doom_loop_threshold: z.number().int().min(2).optional(),
  /** Loom only: seconds a workspace tool waits for its host's worker before the model is told (default 600). */
  host_wait: z.number().positive().optional(),
  /** Loom only: seconds a permission ask waits for a reply before it is treated as rejected. */
  permission_timeout: z.number().positive().optional(),
  compaction: z
    .strictObject({
      /** Compact automatically when the context fills up (default true). */
      auto: z.boolean().optional(),
      /** Clear old tool outputs after each run (default true). */
      prune: z.boolean().optional(),
      /** Tokens kept free for the model's answer. */
      reserved: z.number().int().min(0).optional(),
    })
    .optional(),
  /** Snapshot the project's files around each step that may change them, for `loom diff`/`revert` (default true). */
  snapshot: z.boolean().optional(),
  /** Loom only: name new sessions with the hidden `title` agent (default true). */
  auto_title: z.boolean().optional(),
  /** How deep subagents may nest: 1 lets a primary agent delegate, but not its subagents. */
  subagent_depth: z.number().int().min(0).optional(),
  /** Loom only: task calls of one run that may run at once; the rest wait their turn. */
  max_concurrent_subagents: z.number().int().min(1).optional(),
  /** Loom only: the largest prompt accepted, in bytes (default 8 MiB). */
  max_prompt_bytes: z.number().int().positive().optional(),
  /** Loom only: variables to set, remove or let through in the processes tools start (see shell-env.ts). */
  shell_env: ShellEnvConfig.optional(),
  /**
   * Loom only: how the operating system confines bash, commands' shell
   * lines and local MCP servers (see sandbox-config.ts).
   */
  sandbox: SandboxConfig.optional(),
  /** Plugin modules: paths relative to the config file, or package names installed for the project. */
  plugin: z.array(z.string()).optional(),
  /** Loom only: seconds a plugin's initialiser or hook may take before its call fails (default 10). */
  plugin_timeout: z.number().positive().optional(),
  /** MCP servers by name: their tools are offered as `<name>_<tool>`. */
  mcp: z.record(z.string(), McpServerConfig).optional(),
  /**
   * The terminal UI's keys: keybind name to keys (`"<leader>n"`, `"ctrl+c,ctrl+d"`, `"none"`, or
   * `false` for none). Only the shape is checked here; the TUI checks names and keys when it starts
   * (client/tui/input/keybinds.ts), naming the file.
   */
  keybinds: z
    .record(
      z.string(),
      z.union([z.string(), z.literal(false)], {
        error: (issue) =>
          `expected keys such as "ctrl+x,<leader>n", "none" or false, got ${JSON.stringify(issue.input)}`,
      }),
    )
    .optional(),
  /** Loom only: where sessions are kept. `LOOM_STORE_URL` wins over it. */
  store: z
    .strictObject({
      /**
       * `postgres://user:password@host:5432/database`, for several machines; without it, SQLite in the data folder.
       */
      url: z.string().optional(),
    })
    .optional(),
});
export const LoomConfig = LoomConfigObject.transform(({ mode, ...config }) => {
  if (!mode) return config;
  const agent: Record<string, AgentConfig> = {};
  for (const [name, legacy] of Object.entries(mode)) agent[name] = { ...legacy, mode: 'primary' };
  return { ...config, agent: deepMerge(agent, config.agent ?? {}) as Record<string, AgentConfig> };
});
export type LoomConfig = z.infer<typeof LoomConfig>;

/** The top-level keys Loom reads. */
export const LOOM_CONFIG_KEYS: readonly string[] = Object.keys(LoomConfigObject.shape);

/** Merges configuration layers: objects key by key, anything else replaced by the later value. */
export function mergeConfig(base: LoomConfig, next: LoomConfig): LoomConfig {
  return deepMerge(base, next) as LoomConfig;
}

function deepMerge(base: unknown, next: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(next)) return next;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(next)) merged[key] = key in base ? deepMerge(base[key], value) : value;
  return merged;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
