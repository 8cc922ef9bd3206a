import type { AvailableCommand, SessionModeState } from '@agentclientprotocol/sdk';
import { commandsOf } from '../../core/config/built-in-commands.js';
import { RequestError } from '@agentclientprotocol/sdk';
import { listAgents } from '../../core/agents/resolve.js';
import type { ProjectAgents } from '../services/project-agents.js';

/** ACP's modes are the project's primary agents (build, plan, …), the default first. */
export function sessionModes(project: ProjectAgents, current: string): SessionModeState {
  const modes = primaryAgents(project).map((agent) => ({
    id: agent.name,
    name: agent.name,
    ...(agent.description ? { description: agent.description } : {}),
  }));
  return { currentModeId: current, availableModes: modes };
}

/** The mode asked for, checked: an unknown one is an error that names it and the modes there are. */
export function checkMode(project: ProjectAgents, modeId: string, sessionId: string): string {
  const names = primaryAgents(project).map((agent) => agent.name);
  if (names.includes(modeId)) return modeId;
  throw RequestError.invalidParams(
    { modeId, modes: names },
    `unknown mode "${modeId}" for session ${sessionId}; its modes are ${names.join(', ')}`,
  );
}

/** The project's slash commands (loom.json's `command`, .loom/command/*.md) and `/init`, as the editor offers them. */
export function availableCommands(project: ProjectAgents): AvailableCommand[] {
  return Object.entries(commandsOf(project.config))
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, command]) => ({
      name,
      description: command.description ?? `/${name}`,
      input: { hint: 'arguments' },
    }));
}

function primaryAgents(project: ProjectAgents) {
  return listAgents(project.agents, project.defaultAgent).filter((agent) => agent.mode !== 'subagent' && !agent.hidden);
}
