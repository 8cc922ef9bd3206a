import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentInfo } from '../../core/agents/index.js';

const DEFAULT_PROMPT = `You are Loom, an agent that helps with software engineering tasks in the user's project. Use the tools you are given; be concise.`;

/**
 * The agent's prompt followed by a short description of where it is working. `git`: whether the
 * directory is a repository, as its host saw it; when unknown, this worker's disk is asked.
 */
export function systemPrompt(agent: AgentInfo, directory: string, now = new Date(), git?: boolean): string {
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
  return `${agent.prompt ?? DEFAULT_PROMPT}\n\n${environment}`;
}
