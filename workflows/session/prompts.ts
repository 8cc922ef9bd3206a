import { parseSlashCommand } from '../../core/command-template.js';
import { newId } from '../../core/ids.js';
import type { SessionRunInput } from '../../core/run.js';
import { commands, store } from './activities.js';
import { PermissionGate } from './permission-gate.js';
import type { RunState } from './run-state.js';

/**
 * Writes the prompts that arrived since the last step as user messages. A `/command` is expanded
 * first: a subtask command is recorded and left for the loop to run (and the prompts after it wait
 * for the next step); any other command becomes the prompt of its agent, which takes over the run.
 */
export async function takePrompts(input: SessionRunInput, state: RunState): Promise<void> {
  while (state.queued.length > 0 && !state.subtask) {
    let text = state.queued.shift()!;
    const slash = parseSlashCommand(text);
    if (slash && state.config!.commands.includes(slash.name)) {
      const prepared = await commands.prepareCommand({
        directory: input.directory,
        name: slash.name,
        arguments: slash.arguments,
        agent: state.config!.agent.name,
      });
      if (prepared.subtask) {
        state.userMessageId = newId('msg', Date.now(), Math.random);
        await store.saveSubtaskMessage({
          sessionId: input.sessionId,
          messageId: state.userMessageId,
          agent: state.config!.agent.name,
          model: state.config!.model,
          subtask: prepared,
        });
        state.subtask = prepared;
        state.bypassTaskAsk = false;
        return;
      }
      if (prepared.agent !== state.config!.agent.name || (prepared.model && prepared.model !== state.config!.model)) {
        await switchAgent(input, state, prepared.agent, prepared.model);
      }
      text = prepared.prompt;
    }
    state.userMessageId = newId('msg', Date.now(), Math.random);
    // Runs recorded before `saveUserMessage` reported mentions replay its result as undefined.
    const saved = await store.saveUserMessage({
      sessionId: input.sessionId,
      messageId: state.userMessageId,
      agent: state.config!.agent.name,
      model: state.config!.model,
      text,
      directory: input.directory,
    });
    // A new prompt is a new turn: only an @mention in it lets its task calls skip the ask.
    state.bypassTaskAsk = (saved?.mentions.length ?? 0) > 0;
  }
}

/** Appends a prompt Loom writes itself (not the user's), which the next step answers. */
export async function appendSyntheticPrompt(input: SessionRunInput, state: RunState, text: string): Promise<void> {
  state.userMessageId = newId('msg', Date.now(), Math.random);
  await store.saveUserMessage({
    sessionId: input.sessionId,
    messageId: state.userMessageId,
    agent: state.config!.agent.name,
    model: state.config!.model,
    text,
    directory: input.directory,
    synthetic: true,
  });
}

/** Another agent (a command's) takes over the run: its rules, tools and model from now on. */
async function switchAgent(input: SessionRunInput, state: RunState, agent: string, model: string | undefined): Promise<void> {
  const config = await store.prepareRun({
    sessionId: input.sessionId,
    parentId: input.parentId,
    directory: input.directory,
    agent,
    model,
    sessionRules: state.config!.sessionRules,
  });
  state.config = config;
  state.gate = new PermissionGate(config, { id: input.sessionId, agent: config.agent.name });
  await store.openSession({
    sessionId: input.sessionId,
    parentId: input.parentId,
    agent: config.agent.name,
    model: config.model,
    directory: input.directory,
  });
}
