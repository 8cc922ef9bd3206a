import { upsertMemo } from '@temporalio/workflow';
import type { QueuedPrompt } from '../../core/records/prompt.js';
import type { RunConfig, SessionRunInput } from '../../core/runs/run.js';
import { store, titles } from '../activity-policies.js';
import { onWorkspace } from './workspace.js';
import { showProgress, type RunState } from './run-state.js';

/**
 * Decides the run's agent, model and rules from the configuration and opens the session. A new
 * root session with no title gets one from the `title` agent, without holding the loop up: the
 * returned promise settles when the title is there (or could not be had).
 */
export async function startSession(
  input: SessionRunInput,
  state: RunState,
  firstPrompt: QueuedPrompt | undefined,
): Promise<{ config: RunConfig; titling: Promise<void> }> {
  const config = await onWorkspace(
    'prepareRun',
    {
      sessionId: input.sessionId,
      parentId: input.parentId,
      directory: input.directory,
      agent: input.agent,
      model: input.model,
      sessionRules: input.sessionRules,
      ...(input.budget ? { budget: input.budget } : {}),
      ...(input.byPerson ? { byPerson: true } : {}),
    },
    { host: input.host },
    state,
  );
  upsertMemo({ agent: config.agent.name, model: config.model });
  const opened = await store.openSession({
    sessionId: input.sessionId,
    parentId: input.parentId,
    title: input.title,
    agent: config.agent.name,
    model: config.model,
    directory: input.directory,
    host: input.host,
    permission: input.sessionRules,
    parentPartId: input.parentPartId,
    ...(config.budget ? { budget: config.budget } : {}),
  });
  state.title = opened?.title;
  showTitle(state.title);
  const wantsTitle = config.autoTitle && opened?.created && !input.parentId && !input.title && firstPrompt;
  const titling = wantsTitle
    ? titles
        .generateTitle({
          sessionId: input.sessionId,
          directory: input.directory,
          model: config.model,
          workspaceConfigId: config.workspaceConfigId,
          promptId: firstPrompt!.promptId,
        })
        .then(
          (title) => {
            if (title) state.title = title;
            if (title) showTitle(title);
            showProgress(state);
          },
          () => undefined, // A session without a generated title is still a session.
        )
    : Promise.resolve();
  return { config, titling };
}

/**
 * The title in the run's memo: unlike the current details, which only a running worker answers,
 * the memo stays on the run once it has closed (the Temporal UI's Memo, `describe().memo`).
 */
function showTitle(title: string | undefined): void {
  if (title) upsertMemo({ title });
}
