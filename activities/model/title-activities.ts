import { Context } from '@temporalio/activity';
import { generateText } from 'ai';
import { plainLine } from '../../core/text/answer-summary.js';
import { findAgent } from '../../core/agents/resolve.js';
import { workspaceConfig } from '../config/workspace-config.js';
import type { ActivityDeps } from '../deps.js';
import { readPrompt } from '../session/stored-prompt.js';
import { projectAgents } from '../config/project-agents.js';
import { classifyModelError } from './errors.js';
import { resolveModel } from './provider.js';

const TITLE_LIMIT = 100;
const TITLE_SOURCE_LIMIT = 20_000;
const TITLE_WAIT_MS = 60_000;

/** One line, thinking and markdown marks (`## Title`, `**Title**`) removed, at most 100 characters. */
export function cleanTitle(text: string): string {
  const line =
    text
      .replace(/<think>[\s\S]*?<\/think>/g, '')
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? '';
  const bare = plainLine(line)
    .replace(/^["'“]+|["'”]+$/g, '')
    .trim();
  return bare.length > TITLE_LIMIT ? `${bare.slice(0, TITLE_LIMIT - 3)}...` : bare;
}

export function createTitleActivities({ store, env, dataDir }: ActivityDeps) {
  /**
   * Names a new root session with the hidden `title` agent (the configured `small_model` if any),
   * unless someone gave it a title meanwhile. Returns the title it set.
   */
  async function generateTitle(input: {
    sessionId: string;
    directory: string;
    model: string;
    /** The project's configuration as its host read it (`RunConfig.workspaceConfigId`). */
    workspaceConfigId: string;
    /** The first prompt, by id. */
    promptId: string;
  }): Promise<string | undefined> {
    const prompt = await readPrompt(store, input.promptId, input.sessionId);
    const { config } = await workspaceConfig(store, env, input);
    const agent = findAgent(projectAgents(config, dataDir), 'title');
    const model = agent.model ?? config.small_model ?? input.model;
    try {
      // A title is not worth a long wait: its activity has two minutes.
      const resolved = await resolveModel(model, config, env, { store, maxWaitMs: TITLE_WAIT_MS });
      const { text, usage } = await generateText({
        model: resolved.model,
        system: agent.prompt,
        // The start of a long prompt says enough to name the conversation.
        messages: [
          { role: 'user', content: `Generate a title for this conversation:\n${prompt.slice(0, TITLE_SOURCE_LIMIT)}` },
        ],
        temperature: agent.temperature,
        maxRetries: 0,
        abortSignal: Context.current().cancellationSignal,
      });
      await resolved.rateGates?.spend(usage.totalTokens ?? 0);
      const title = cleanTitle(text);
      const session = await store.getSession(input.sessionId);
      if (!title || !session || !session.title.startsWith('New session - ')) return undefined;
      await store.saveSession({ ...session, title });
      return title;
    } catch (error) {
      throw classifyModelError(error, model);
    }
  }

  return { generateTitle };
}
