import { budgetOfLimits } from '../runs/budget.js';
import type { AgentConfig, LoomConfig } from '../config/config.js';
import { fromConfig, merge, permissionOfTool, type PermissionConfig } from '../rules/permission.js';
import type { AgentInfo } from './agent.js';
import { BUILTIN_AGENTS, DEFAULT_PERMISSION } from './builtin.js';

export interface ResolveOptions {
  /** The user's home directory, for `~` in permission patterns. */
  home?: string;
  /** Where cut tool outputs are saved: every agent may read there unless it denies it. */
  toolOutputDir?: string;
}

const KNOWN_AGENT_KEYS = new Set([
  'name',
  'description',
  'mode',
  'model',
  'variant',
  'prompt',
  'temperature',
  'top_p',
  'steps',
  'maxSteps',
  'permission',
  'tools',
  'hidden',
  'color',
  'disable',
  'options',
  'sandbox',
  'timeout',
  'limits',
]);

/**
 * Every agent of a project: the built-ins, changed by config agents of the same name, then the
 * config's own agents. A ruleset is assembled as OpenCode does: defaults, the built-in's changes,
 * the user's global `permission`, the agent's own `permission`, then access to saved tool outputs.
 */
export function resolveAgents(config: LoomConfig, options: ResolveOptions = {}): AgentInfo[] {
  const defaults = fromConfig(DEFAULT_PERMISSION, options);
  const global = merge(fromConfig(legacyTools(config.tools), options), fromConfig(config.permission, options));
  const agents = new Map<string, AgentInfo>();
  for (const builtin of BUILTIN_AGENTS) {
    agents.set(builtin.name, {
      name: builtin.name,
      description: builtin.description,
      mode: builtin.mode,
      native: true,
      hidden: builtin.hidden,
      prompt: builtin.prompt,
      temperature: builtin.temperature,
      permission: merge(defaults, fromConfig(builtin.permission, options), global),
      options: {},
    });
  }
  for (const [name, entry] of Object.entries(config.agent ?? {})) {
    if (entry.disable) {
      agents.delete(name);
      continue;
    }
    const base = agents.get(name) ?? {
      name,
      mode: 'all' as const,
      native: false,
      permission: merge(defaults, global),
      options: {},
    };
    agents.set(name, applyConfig(base, entry, options));
  }
  return [...agents.values()].map((agent) => withToolOutputAccess(agent, config.agent?.[agent.name], options));
}

/** The agent a session uses when none is named: `default_agent`, else the first primary one. */
export function defaultAgentName(agents: AgentInfo[], config: LoomConfig): string {
  if (config.default_agent) {
    const chosen = agents.find((agent) => agent.name === config.default_agent);
    if (!chosen) throw new Error(`default_agent "${config.default_agent}" is not an agent. ${available(agents)}`);
    if (chosen.mode === 'subagent' || chosen.hidden) {
      throw new Error(
        `default_agent "${config.default_agent}" must be a primary, visible agent (it is ${chosen.hidden ? 'hidden' : 'a subagent'}).`,
      );
    }
    return chosen.name;
  }
  const first = agents.find((agent) => agent.mode !== 'subagent' && !agent.hidden);
  if (!first) throw new Error('No primary agent is available: every agent is disabled, hidden or a subagent.');
  return first.name;
}

export function findAgent(agents: AgentInfo[], name: string): AgentInfo {
  const agent = agents.find((candidate) => candidate.name === name);
  if (!agent) throw new Error(`Unknown agent "${name}". ${available(agents)}`);
  return agent;
}

/** Agents for listings: the default first, then in configuration order. */
export function listAgents(agents: AgentInfo[], defaultName: string): AgentInfo[] {
  return [...agents].sort((a, b) => Number(b.name === defaultName) - Number(a.name === defaultName));
}

function available(agents: AgentInfo[]): string {
  return `Available agents: ${agents
    .filter((agent) => !agent.hidden)
    .map((agent) => agent.name)
    .join(', ')}`;
}

function applyConfig(base: AgentInfo, entry: AgentConfig, options: ResolveOptions): AgentInfo {
  const extra = Object.fromEntries(Object.entries(entry).filter(([key]) => !KNOWN_AGENT_KEYS.has(key)));
  return {
    ...base,
    description: entry.description ?? base.description,
    mode: entry.mode ?? base.mode,
    model: entry.model ?? base.model,
    variant: entry.variant ?? base.variant,
    prompt: entry.prompt ?? base.prompt,
    temperature: entry.temperature ?? base.temperature,
    topP: entry.top_p ?? base.topP,
    steps: entry.steps ?? base.steps,
    timeout: entry.timeout ?? base.timeout,
    limits: budgetOfLimits(entry.limits) ?? base.limits,
    hidden: entry.hidden ?? base.hidden,
    color: entry.color ?? base.color,
    permission: merge(
      base.permission,
      fromConfig(legacyTools(entry.tools), options),
      fromConfig(entry.permission, options),
    ),
    options: { ...base.options, ...extra, ...entry.options },
  };
}

/** OpenCode's legacy `tools: {name: bool}`: a permission per tool, edit tools counting as `edit`. */
function legacyTools(tools: Record<string, boolean> | undefined): PermissionConfig | undefined {
  if (!tools) return undefined;
  return Object.fromEntries(
    Object.entries(tools).map(([tool, enabled]) => [permissionOfTool(tool), enabled ? 'allow' : 'deny']),
  );
}

function withToolOutputAccess(agent: AgentInfo, entry: AgentConfig | undefined, options: ResolveOptions): AgentInfo {
  if (!options.toolOutputDir) return agent;
  const own = fromConfig(entry?.permission, options);
  if (own.some((rule) => rule.permission === 'external_directory' && rule.action === 'deny')) return agent;
  const rule = { permission: 'external_directory', pattern: `${options.toolOutputDir}/*`, action: 'allow' as const };
  return { ...agent, permission: [...agent.permission, rule] };
}
