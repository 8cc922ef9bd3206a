export type { AgentInfo, AgentMode } from './agent.js';
export { BUILTIN_AGENTS, DEFAULT_PERMISSION } from './builtin.js';
export { defaultAgentName, findAgent, listAgents, resolveAgents, type ResolveOptions } from './resolve.js';
