import { loadConfig } from '../activities/config/load.js';
import { projectAgents } from '../activities/run-config.js';
import { defaultAgentName, findAgent, type AgentInfo } from '../core/agents/index.js';
import { CliError } from './cli-error.js';

export interface ProjectAgents {
  agents: AgentInfo[];
  defaultAgent: string;
}

/** The agents of a project as a run would see them; configuration errors become CLI errors. */
export function loadProjectAgents(directory: string, env: NodeJS.ProcessEnv, dataDir: string): ProjectAgents {
  try {
    const config = loadConfig(directory, env);
    const agents = projectAgents(config, dataDir);
    return { agents, defaultAgent: defaultAgentName(agents, config) };
  } catch (error) {
    throw new CliError((error as Error).message);
  }
}

/** The agent to run: the one named (which must exist), else the project's default. */
export function chooseAgent(name: string | undefined, project: ProjectAgents): string {
  if (!name) return project.defaultAgent;
  try {
    return findAgent(project.agents, name).name;
  } catch (error) {
    throw new CliError((error as Error).message);
  }
}
