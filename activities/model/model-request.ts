import type { ModelMessage } from 'ai';
import { findAgent } from '../../core/agents/resolve.js';
import { type AgentInfo } from '../../core/agents/agent.js';
import { BUILD_SWITCH_REMINDER, MAX_STEPS_REMINDER, PLAN_REMINDER } from '../../core/agents/prompts/reminders.js';
import type { MessageWithParts } from '../../core/records/message.js';
import type { ModelStepInput } from '../../core/models/model-step.js';
import type { PromptVariant } from '../../core/models/prompt-variant.js';
import { sinceLastCompaction } from '../../core/models/compaction.js';
import type { LoomConfig } from '../../core/config/config.js';
import { projectAgents } from '../config/project-agents.js';
import { systemPrompt } from './system-prompt.js';
import type { RulesFile } from '../config/files.js';
import { toModelMessages, type TranscriptOptions } from './transcript.js';

export interface ModelRequest {
  agent: AgentInfo;
  /** Every agent of the project (the `task` tool lists those the caller may use). */
  agents: AgentInfo[];
  system: string;
  messages: ModelMessage[];
}

/**
 * The request for one step: the agent's prompt, the conversation from the store, and the
 * reminders OpenCode adds (plan mode, the switch back to build, the step limit), which are shown
 * to the model but not stored.
 */
export function buildModelRequest(
  input: ModelStepInput,
  config: LoomConfig,
  dataDir: string,
  history: MessageWithParts[],
  /** Whether the project is a git repository, what it holds and its rules files, as its host saw them; how much to tell the model. */
  context: { git?: boolean; entries?: string[]; variant?: PromptVariant; rules?: RulesFile[] } = {},
  transcript: TranscriptOptions = {},
): ModelRequest {
  const agents = projectAgents(config, dataDir);
  const agent = findAgent(agents, input.agent);
  const messages = toModelMessages(sinceLastCompaction(history), transcript);
  const reminders: string[] = [];
  if (agent.name === 'plan') reminders.push(PLAN_REMINDER);
  if (agent.name === 'build' && history.some((m) => m.info.role === 'assistant' && m.info.agent === 'plan')) {
    reminders.push(BUILD_SWITCH_REMINDER);
  }
  if (reminders.length > 0) appendToLastUserMessage(messages, reminders.join('\n\n'));
  if (input.lastStep) messages.push({ role: 'user', content: [{ type: 'text', text: MAX_STEPS_REMINDER }] });
  return {
    agent,
    agents,
    system: systemPrompt(
      agent,
      input.directory,
      new Date(),
      context.git,
      context.variant,
      context.entries,
      context.rules,
    ),
    messages,
  };
}

function appendToLastUserMessage(messages: ModelMessage[], text: string): void {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message.role !== 'user') continue;
    const content =
      typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
    messages[index] = { ...message, content: [...content, { type: 'text', text }] };
    return;
  }
}
