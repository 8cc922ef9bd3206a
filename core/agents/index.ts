import type { AgentInfo } from './agent.js';
import { build } from './build.js';

export type { AgentInfo, AgentMode } from './agent.js';

export const builtinAgents: AgentInfo[] = [build];

export const DEFAULT_AGENT = 'build';

export function findAgent(name: string, agents: AgentInfo[] = builtinAgents): AgentInfo {
  const agent = agents.find((candidate) => candidate.name === name);
  if (!agent) {
    throw new Error(`Unknown agent "${name}". Available agents: ${agents.map((a) => a.name).join(', ')}`);
  }
  return agent;
}
