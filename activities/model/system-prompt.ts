import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentInfo } from '../../core/agents/agent.js';
import { smallModelPrompt } from '../../core/agents/prompts/small.js';
import type { PromptVariant } from '../../core/models/prompt-variant.js';
import { sampleFile } from '../../core/tools/small-model.js';
import { rulesPrompt } from '../config/rules.js';
import type { RulesFile } from '../config/files.js';

const DEFAULT_PROMPT = `You are Loom, an agent that helps with software engineering tasks in the user's project. Use the tools you are given; be concise.`;

/**
 * The agent's prompt followed by a short description of where it is working, then the project's
 * rules files (AGENTS.md, `instructions`: activities/config/rules.ts). `git`: whether the
 * directory is a repository, as its host saw it; when unknown, this worker's disk is asked. A
 * small model gets the short form of a built-in agent's prompt and what the project folder held
 * when the run started (`entries`), so it need not guess names.
 */
export function systemPrompt(
  agent: AgentInfo,
  directory: string,
  now = new Date(),
  git?: boolean,
  variant: PromptVariant = 'full',
  entries?: string[],
  rules: readonly RulesFile[] = [],
): string {
  const prompt = agent.prompt ?? DEFAULT_PROMPT;
  const rulesPart = rules.length ? `\n\n${rulesPrompt(rules)}` : '';
  if (variant === 'small') {
    // Not the folder's path: small models copy pieces of it into the paths they write.
    const file = sampleFile(entries);
    const holds = entries?.length ? ` It holds: ${entries.join(', ')}` : '';
    return `${smallModelPrompt(prompt)}\n\nYou are in the project folder. Write paths relative to it, such as ${file}.${holds}${rulesPart}`;
  }
  const isRepo = git ?? existsSync(join(directory, '.git'));
  const environment = [
    'Here is useful information about the environment you are running in:',
    '<env>',
    `  Working directory: ${directory}`,
    `  Is directory a git repo: ${isRepo ? 'yes' : 'no'}`,
    `  Platform: ${process.platform}`,
    `  Today's date: ${now.toDateString()}`,
    '</env>',
  ].join('\n');
  return `${prompt}\n\n${environment}${rulesPart}`;
}
