import { loadConfig } from '../../activities/config/load.js';
import { diskFiles, recordedFiles, type ConfigFilesRecord } from '../../activities/config/files.js';
import type { LoomConfig } from '../../core/config/config.js';
import { projectAgents } from '../../activities/config/project-agents.js';
import { defaultAgentName, findAgent, listAgents } from '../../core/agents/resolve.js';
import { type AgentInfo } from '../../core/agents/agent.js';
import { wildcardMatch, type Ruleset } from '../../core/rules/permission.js';
import { InputError } from '../input-error.js';
import type { ConfigTrustRecords } from '../../activities/store/config-trust.js';
import { filesForPerson, reviewConfig } from './config-review.js';

export interface ProjectAgents {
  agents: AgentInfo[];
  defaultAgent: string;
  /** The configuration they came from (loom.json and the rest, as a run in this folder reads it). */
  config: LoomConfig;
}

/**
 * The agents of a project as a run would see them, from `project` (the config files a run a person
 * starts would use; the disk's by default); configuration errors become input errors.
 */
export function loadProjectAgents(
  directory: string,
  env: NodeJS.ProcessEnv,
  dataDir: string,
  project?: ConfigFilesRecord,
): ProjectAgents {
  try {
    const config = loadConfig(directory, env, project ? recordedFiles(project) : diskFiles);
    const agents = projectAgents(config, dataDir);
    return { agents, defaultAgent: defaultAgentName(agents, config), config };
  } catch (error) {
    throw new InputError((error as Error).message);
  }
}

/**
 * The agents a run a person starts now in `directory` would see: from the config files they trust
 * while a change an agent's work made waits for them, else the disk's (see config-review.ts).
 */
export async function loadPersonProject(
  store: ConfigTrustRecords,
  directory: string,
  env: NodeJS.ProcessEnv,
  dataDir: string,
): Promise<ProjectAgents> {
  const { standing } = await reviewConfig(store, directory, env);
  return loadProjectAgents(directory, env, dataDir, filesForPerson(standing));
}

/** The agent to run: the one named (which must exist), else the project's default. */
export function chooseAgent(name: string | undefined, project: ProjectAgents): string {
  if (!name) return project.defaultAgent;
  try {
    return findAgent(project.agents, name).name;
  } catch (error) {
    throw new InputError((error as Error).message);
  }
}

/** The project's agents as `loom agents --json` and `GET /agent` list them (hidden ones with `all`). */
export function agentRows(project: ProjectAgents, all: boolean) {
  return listAgents(project.agents, project.defaultAgent)
    .filter((agent) => all || !agent.hidden)
    .map((agent) => ({
      name: agent.name,
      default: agent.name === project.defaultAgent,
      mode: agent.mode,
      model: agent.model ?? null,
      description: agent.description ?? null,
      hidden: Boolean(agent.hidden),
      native: agent.native,
      steps: agent.steps ?? null,
      permissions: summarizePermissions(agent.permission),
      rules: agent.permission,
    }));
}

/**
 * A ruleset in a few words: for each permission the action it takes on everything, plus how many
 * patterns make exceptions (`edit: deny (+2 patterns)`). Permissions that just follow `*` are left
 * out. The last rule that applies wins, as when a call is checked: an agent's `"*": "deny"` after
 * the defaults' `unsandboxed: ask` denies it.
 */
export function summarizePermissions(rules: Ruleset): string[] {
  const names = [...new Set(rules.map((rule) => rule.permission))];
  // The rule that decides a call of `permission` on any pattern, and its place in the ruleset.
  const base = (permission: string) => {
    const at = rules.findLastIndex((rule) => rule.pattern === '*' && wildcardMatch(permission, rule.permission));
    return { at, action: at >= 0 ? rules[at].action : 'ask' };
  };
  const everything = base('*').action;
  const lines = [`*: ${everything}`];
  for (const name of names.filter((n) => n !== '*')) {
    const { at, action } = base(name);
    const exceptions = new Set(
      rules
        .filter((rule, index) => index > at && rule.permission === name && rule.pattern !== '*')
        .map((rule) => rule.pattern),
    ).size;
    if (action === everything && exceptions === 0) continue;
    lines.push(`${name}: ${action}${exceptions ? ` (+${exceptions} pattern${exceptions > 1 ? 's' : ''})` : ''}`);
  }
  return lines;
}
