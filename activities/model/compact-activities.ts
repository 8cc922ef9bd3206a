import { ApplicationFailure } from '@temporalio/common';
import type { ModelMessage } from 'ai';
import { findAgent } from '../../core/agents/resolve.js';
import { sinceLastCompaction } from '../../core/models/compaction.js';
import { costOf } from '../../core/models/cost.js';
import { derivedId } from '../../core/records/ids.js';
import { zeroTokens, type MessageWithParts } from '../../core/records/message.js';
import { modelInfo } from '../../core/models/model-info.js';
import { workspaceConfig } from '../config/workspace-config.js';
import type { ActivityDeps } from '../deps.js';
import { createdTime } from '../session/message-time.js';
import { storePrompt } from '../session/stored-prompt.js';
import { projectAgents } from '../config/project-agents.js';
import { ModelFailure } from './failure-kinds.js';
import { resolveModel } from './provider.js';
import { streamIntoMessage } from './stream-answer.js';
import { toModelMessages } from './transcript.js';

/** What the compaction agent is asked for: a continuation prompt in five sections. */
export const COMPACTION_INSTRUCTION = `Write a detailed continuation prompt for the conversation above, for another agent who will continue the work without seeing it. Use exactly these sections:

## Goal
What the user wants, in their words where it matters.

## Instructions
Constraints and preferences the user gave that still hold.

## Discoveries
What was learned about the code and the problem: facts, causes, decisions and why.

## Accomplished
What is done, what is in progress, and what is left, as concrete next steps.

## Relevant files / directories
Paths with a few words each on why they matter.

Do not answer questions from the conversation or continue the work yourself; only write the summary.`;

export interface CompactionInput {
  sessionId: string;
  /** The summary message this writes. */
  messageId: string;
  /** The compaction request (a user message holding a `compaction` part). */
  parentMessageId: string;
  model: string;
  directory: string;
  step: number;
  /** The project's configuration as its host read it (`RunConfig.workspaceConfigId`). */
  workspaceConfigId: string;
  /** The model's context overflowed: the last user message is kept out and replayed after. */
  overflow: boolean;
}

export function createCompactionActivities({ store, env, dataDir }: ActivityDeps) {
  /**
   * Summarises the conversation since the last compaction with the hidden `compaction` agent (no
   * tools, media replaced by markers, tool outputs cut short). Returns the user message to replay
   * (stored as a prompt), if the context overflowed while it was being answered.
   */
  async function compactSession(input: CompactionInput): Promise<{ replayPromptId?: string }> {
    const { config } = await workspaceConfig(store, env, input);
    const agent = findAgent(projectAgents(config, dataDir), 'compaction');
    const model = agent.model ?? input.model;
    const history = (await store.messages(input.sessionId)).filter((m) => m.info.id !== input.messageId);
    let material = sinceLastCompaction(history).filter((m) => m.info.id !== input.parentMessageId);
    let replay: MessageWithParts | undefined;
    if (input.overflow) {
      const index = material.findLastIndex(
        (m) => m.info.role === 'user' && !m.parts.some((p) => p.type === 'compaction'),
      );
      if (index > 0) {
        replay = material[index];
        material = material.slice(0, index);
      }
    }
    const messages: ModelMessage[] = [
      ...toModelMessages(material, { stripMedia: true, toolOutputLimit: 2_000 }),
      { role: 'user', content: [{ type: 'text', text: COMPACTION_INSTRUCTION }] },
    ];
    try {
      await streamIntoMessage(
        store,
        {
          id: input.messageId,
          sessionID: input.sessionId,
          role: 'assistant',
          parentID: input.parentMessageId,
          agent: 'compaction',
          model,
          step: input.step,
          summary: true,
          time: { created: await createdTime(store, input.messageId) },
          tokens: zeroTokens(),
          cost: 0,
        },
        async () => {
          const resolved = await resolveModel(model, config, env, { store });
          const { cost } = modelInfo(config, model);
          return {
            model: resolved,
            system: agent.prompt ?? '',
            messages,
            temperature: agent.temperature,
            costOf: (tokens) => costOf(tokens, cost),
          };
        },
      );
    } catch (error) {
      if (error instanceof ApplicationFailure && error.type === ModelFailure.contextOverflow) {
        const message = replay
          ? 'Conversation history too large to compact - exceeds model context limit'
          : 'Session too large to compact - context exceeds model limit even after stripping media';
        throw ApplicationFailure.create({
          type: ModelFailure.contextOverflow,
          message: `${message} (${error.message})`,
          nonRetryable: true,
        });
      }
      throw error;
    }
    const text = replay?.parts
      .flatMap((part) => (part.type === 'text' && !part.synthetic ? [part.text] : []))
      .join('\n');
    if (!text) return {};
    const replayPromptId = derivedId('prm', input.messageId);
    await storePrompt(store, replayPromptId, text, input.sessionId);
    return { replayPromptId };
  }

  return { compactSession };
}
