import { resolve } from 'node:path';
import pc from 'picocolors';
import { listAgents } from '../../core/agents/resolve.js';
import { type AgentInfo } from '../../core/agents/agent.js';
import type { ClientContext } from '../context.js';
import { plural } from '../render/quantities.js';
import { agentRows, loadProjectAgents, summarizePermissions } from '../services/project-agents.js';
import { filesForPerson, reviewConfig } from '../services/config-review.js';

/** `loom agents`: the project's agents with mode, model, description and what they may do. */
export async function agentsCommand(
  context: ClientContext,
  options: { json?: boolean; dir?: string; all?: boolean },
): Promise<number> {
  const directory = resolve(options.dir ?? process.cwd());
  // A run a person starts now would see these: the trusted files while a change an agent made waits.
  const { standing } = await reviewConfig(context.store, directory, context.env);
  const project = loadProjectAgents(directory, context.env, context.settings.dataDir, filesForPerson(standing));
  if (options.json) {
    process.stdout.write(`${JSON.stringify(agentRows(project, Boolean(options.all)))}\n`);
    return 0;
  }
  const shown = listAgents(project.agents, project.defaultAgent).filter((agent) => options.all || !agent.hidden);
  for (const agent of shown) process.stdout.write(`${describeAgent(agent, agent.name === project.defaultAgent)}\n\n`);
  return 0;
}

function describeAgent(agent: AgentInfo, isDefault: boolean): string {
  const facts = [
    agent.mode,
    agent.model ?? 'session model',
    agent.steps ? plural(agent.steps, 'step') : undefined,
    isDefault ? 'default' : undefined,
  ];
  return [
    `${pc.bold(agent.name)}  ${pc.dim(facts.filter(Boolean).join(' · '))}`,
    ...(agent.description ? [`  ${agent.description}`] : []),
    `  ${pc.dim(summarizePermissions(agent.permission).join(' · '))}`,
  ].join('\n');
}
