import { findAgent } from '../../core/agents/resolve.js';
import { parseSlashCommand } from '../../core/config/command-template.js';
import { commandsOf } from '../../core/config/built-in-commands.js';
import { partId } from '../../core/records/ids.js';
import { expandedPromptId, preview } from '../../core/records/prompt.js';
import type { ToolPart } from '../../core/records/part.js';
import { expandCommand } from './commands.js';
import { ConfigError } from '../config/load.js';
import { runConfiguration } from '../config/run-configuration.js';
import type { ActivityDeps } from '../deps.js';
import { openingAssistantMessage, saveUserMessageRow, type AssistantStep } from './message-time.js';
import { readPrompt, storePrompt } from './stored-prompt.js';
import { projectAgents } from '../config/project-agents.js';

/** A slash command, ready to run: as a subtask in a child session, or as a prompt. */
export interface PreparedCommand {
  subtask: boolean;
  command: string;
  /** The agent that runs it: the command's, else the session's current one. */
  agent: string;
  model?: string;
  description: string;
  /** The expanded template, stored as a prompt. */
  promptId: string;
  /** The start of the expanded template, for the Temporal UI. */
  promptPreview: string;
}

export function createCommandActivities({ store, env, dataDir }: ActivityDeps) {
  /**
   * Expands `/name args` into its prompt (arguments, then `` !`shell` `` output) and decides how it
   * runs: as a subtask when the command says `subtask: true`, or when its agent is a subagent and
   * the command does not say `subtask: false` (OpenCode's rule).
   */
  async function prepareCommand(input: {
    directory: string;
    agent: string;
    /** The stored prompt `/name arguments`. */
    promptId: string;
    sessionId?: string;
    /** The run's configuration (absent from runs of Loom 0.3.0 and before: see `runConfiguration`). */
    workspaceConfigId?: string;
  }): Promise<PreparedCommand> {
    const slash = parseSlashCommand(await readPrompt(store, input.promptId, input.sessionId));
    const name = slash?.name ?? '';
    const { config } = await runConfiguration(store, env, input);
    const commands = commandsOf(config);
    const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
    if (!command)
      throw new ConfigError(
        `Unknown command "/${name}". Commands: ${
          Object.keys(commands)
            .map((n) => `/${n}`)
            .join(', ') || 'none'
        }`,
      );
    const agent = findAgent(projectAgents(config, dataDir), command.agent ?? input.agent);
    const expanded = await expandCommand(name, command, slash?.arguments ?? '', {
      directory: input.directory,
      env,
      config,
      sessionId: input.sessionId,
      agent: agent.name,
      dataDir,
    });
    const subtask = command.subtask === true || (agent.mode === 'subagent' && command.subtask !== false);
    const prepared = {
      subtask,
      command: name,
      agent: agent.name,
      model: command.model ?? agent.model,
      description: command.description ?? `/${name}`,
    };
    const promptId = expandedPromptId(input.promptId);
    await storePrompt(store, promptId, expanded.prompt, input.sessionId);
    return { ...prepared, promptId, promptPreview: preview(expanded.prompt) };
  }

  /** The user's side of a subtask: a message holding the subtask, as OpenCode records it. */
  async function saveSubtaskMessage(input: {
    sessionId: string;
    messageId: string;
    agent: string;
    model: string;
    subtask: PreparedCommand;
  }) {
    await saveUserMessageRow(store, { ...input, promptId: input.subtask.promptId });
    await store.savePart({
      id: partId(input.messageId, 0),
      sessionID: input.sessionId,
      messageID: input.messageId,
      type: 'subtask',
      prompt: await readPrompt(store, input.subtask.promptId, input.sessionId),
      description: input.subtask.description,
      agent: input.subtask.agent,
      model: input.subtask.model,
      command: input.subtask.command,
    });
  }

  /** An assistant message holding one `task` call that Loom makes itself (no model decided it). */
  async function openTaskStep(
    input: AssistantStep & {
      callId: string;
      input: Record<string, unknown>;
      /** The task's prompt, stored. */
      promptId: string;
    },
  ): Promise<{ partId: string }> {
    const taskInput = { ...input.input, prompt: await readPrompt(store, input.promptId, input.sessionId) };
    await store.saveMessage({ ...(await openingAssistantMessage(store, input)), finish: 'tool-calls' });
    const part: ToolPart = {
      id: partId(input.messageId, 0),
      sessionID: input.sessionId,
      messageID: input.messageId,
      type: 'tool',
      callID: input.callId,
      tool: 'task',
      state: { status: 'pending', input: taskInput, raw: JSON.stringify(taskInput) },
    };
    await store.savePart(part);
    return { partId: part.id };
  }

  return { prepareCommand, saveSubtaskMessage, openTaskStep };
}
