import type { SessionRunInput } from '../../core/runs/run.js';
import type { PreparedCommand } from '../../activities/session/command-activities.js';
import { commandsOn, store } from '../activity-policies.js';
import { onWorkspace } from './workspace.js';
import { drawId } from './ids.js';
import { PermissionGate } from './permission-gate.js';
import { placementOf, type RunState } from './run-state.js';

/**
 * Writes the prompts that arrived since the last step as user messages. A `/command` is expanded
 * first: a subtask command is recorded and left for the loop to run (and the prompts after it wait
 * for the next step); any other command becomes the prompt of its agent, which takes over the run.
 * Prompts come by id: their text is read from the store by the activities, never carried here.
 */
export async function takePrompts(input: SessionRunInput, state: RunState): Promise<void> {
  while (state.queued.length > 0 && !state.subtask) {
    const prompt = state.queued.shift()!;
    const messageId = drawId(state, 'msg');
    if (prompt.synthetic) {
      await saveUserMessage(input, state, messageId, { promptId: prompt.promptId, synthetic: true });
      continue;
    }
    const saved = await saveUserMessage(input, state, messageId, {
      promptId: prompt.promptId,
      commands: state.config!.commands,
    });
    if (saved.command) {
      const prepared = await commandsOn(placementOf(input, state)).prepareCommand({
        directory: input.directory,
        sessionId: input.sessionId,
        promptId: prompt.promptId,
        agent: state.config!.agent.name,
        workspaceConfigId: state.config!.workspaceConfigId,
      });
      if (prepared.subtask) return recordSubtask(input, state, prepared, messageId);
      await adoptCommandAgent(input, state, prepared);
      await saveUserMessage(input, state, messageId, { promptId: prepared.promptId });
    }
  }
}

/** A subtask command: recorded for the loop to run as its next step. */
async function recordSubtask(
  input: SessionRunInput,
  state: RunState,
  prepared: PreparedCommand,
  messageId: string,
): Promise<void> {
  state.userMessageId = messageId;
  await store.saveSubtaskMessage({
    sessionId: input.sessionId,
    messageId,
    agent: state.config!.agent.name,
    model: state.config!.model,
    subtask: prepared,
  });
  state.subtask = prepared;
  state.bypassTaskAsk = false;
}

/** Any other command: its agent (and model) take over the run, and its expansion is the prompt. */
async function adoptCommandAgent(input: SessionRunInput, state: RunState, prepared: PreparedCommand): Promise<void> {
  if (prepared.agent !== state.config!.agent.name || (prepared.model && prepared.model !== state.config!.model)) {
    await switchAgent(input, state, prepared.agent, prepared.model);
  }
}

async function saveUserMessage(
  input: SessionRunInput,
  state: RunState,
  messageId: string,
  prompt: { promptId: string; commands?: string[]; synthetic?: boolean },
): Promise<{ command?: string }> {
  const saved = await onWorkspace(
    'saveUserMessage',
    {
      sessionId: input.sessionId,
      messageId,
      agent: state.config!.agent.name,
      model: state.config!.model,
      directory: input.directory,
      workspaceConfigId: state.config!.workspaceConfigId,
      ...prompt,
    },
    placementOf(input, state),
    state,
  );
  if (saved.command) return saved;
  state.userMessageId = messageId;
  // A new prompt is a new turn: only an @mention in it lets its task calls skip the ask.
  state.bypassTaskAsk = saved.mentions.length > 0;
  return {};
}

/** Appends a prompt Loom writes itself (not the user's), which the next step answers: short texts, or stored ones. */
export async function appendSyntheticPrompt(
  input: SessionRunInput,
  state: RunState,
  prompt: { text: string } | { promptId: string },
): Promise<void> {
  state.userMessageId = drawId(state, 'msg');
  await onWorkspace(
    'saveUserMessage',
    {
      sessionId: input.sessionId,
      messageId: state.userMessageId,
      agent: state.config!.agent.name,
      model: state.config!.model,
      directory: input.directory,
      workspaceConfigId: state.config!.workspaceConfigId,
      synthetic: true,
      ...prompt,
    },
    placementOf(input, state),
    state,
  );
}

/** Another agent (a command's) takes over the run: its rules, tools and model from now on. */
async function switchAgent(
  input: SessionRunInput,
  state: RunState,
  agent: string,
  model: string | undefined,
): Promise<void> {
  const config = await onWorkspace(
    'prepareRun',
    {
      sessionId: input.sessionId,
      parentId: input.parentId,
      directory: input.directory,
      agent,
      model,
      sessionRules: state.config!.sessionRules,
    },
    placementOf(input, state),
    state,
  );
  state.config = config;
  state.gate = new PermissionGate(config, { id: input.sessionId, agent: config.agent.name }, state.waiting);
  await store.openSession({
    sessionId: input.sessionId,
    parentId: input.parentId,
    agent: config.agent.name,
    model: config.model,
    directory: input.directory,
    host: input.host,
  });
}
