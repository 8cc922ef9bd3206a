import { resolve } from 'node:path';
import pc from 'picocolors';
import { listAgents, type AgentInfo } from '../../core/agents/index.js';
import type { Ruleset } from '../../core/permission.js';
import type { CliContext } from '../context.js';
import { loadProjectAgents } from '../project-agents.js';

/** `loom agents`: the project's agents with mode, model, description and what they may do. */
export async function agentsCommand(context: CliContext, options: { json?: boolean; dir?: string; all?: boolean }): Promise<number> {
  const directory = resolve(options.dir ?? process.cwd());
  const { agents, defaultAgent } = loadProjectAgents(directory, context.env, context.settings.dataDir);
  const shown = listAgents(agents, defaultAgent).filter((agent) => options.all || !agent.hidden);
  if (options.json) {
    const rows = shown.map((agent) => ({
      name: agent.name,
      default: agent.name === defaultAgent,
      mode: agent.mode,
      model: agent.model ?? null,
      description: agent.description ?? null,
      hidden: Boolean(agent.hidden),
      native: agent.native,
      steps: agent.steps ?? null,
      permissions: summarizePermissions(agent.permission),
      rules: agent.permission,
    }));
    process.stdout.write(`${JSON.stringify(rows)}\n`);
    return 0;
  }
  for (const agent of shown) process.stdout.write(`${describeAgent(agent, agent.name === defaultAgent)}\n\n`);
  return 0;
}

function describeAgent(agent: AgentInfo, isDefault: boolean): string {
  const facts = [agent.mode, agent.model ?? 'session model', agent.steps ? `${agent.steps} steps` : undefined, isDefault ? 'default' : undefined];
  return [
    `${pc.bold(agent.name)}  ${pc.dim(facts.filter(Boolean).join(' · '))}`,
    ...(agent.description ? [`  ${agent.description}`] : []),
    `  ${pc.dim(summarizePermissions(agent.permission).join(' · '))}`,
  ].join('\n');
}

/**
 * A ruleset in a few words: for each permission its action on everything, plus how many patterns
 * make exceptions (`edit: deny (+2 patterns)`). Permissions that just follow `*` are left out.
 */
export function summarizePermissions(rules: Ruleset): string[] {
  const names = [...new Set(rules.map((rule) => rule.permission))];
  const base = (permission: string) => rules.filter((rule) => rule.permission === permission && rule.pattern === '*').at(-1)?.action;
  const everything = base('*') ?? 'ask';
  const lines = [`*: ${everything}`];
  for (const name of names.filter((n) => n !== '*')) {
    const action = base(name);
    const exceptions = new Set(rules.filter((rule) => rule.permission === name && rule.pattern !== '*').map((rule) => rule.pattern)).size;
    if ((action === undefined || action === everything) && exceptions === 0) continue;
    lines.push(`${name}: ${action ?? everything}${exceptions ? ` (+${exceptions} pattern${exceptions > 1 ? 's' : ''})` : ''}`);
  }
  return lines;
}
