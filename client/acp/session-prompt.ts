import type { CancelNotification, PromptRequest, PromptResponse } from '@agentclientprotocol/sdk';
import { currentCursor } from '../follow/session-changes.js';
import { cancellingRun } from '../services/cancelled-prompts.js';
import { checkProviderHere, chooseModel, modelRetryFromEnv, reportMissingKey } from '../services/model-choice.js';
import { loadPersonProject } from '../services/project-agents.js';
import { checkPromptSize, promptLimit } from '../services/sent-prompts.js';
import { cancelSession, resumeSession, rootOf } from '../services/sessions.js';
import { warnOfUnknownCommand } from '../slash-commands.js';
import type { AcpDeps } from './deps.js';
import { unknownSession } from './errors.js';
import { promptText } from './prompt-text.js';
import { followTurn } from './turn-follower.js';

/**
 * `session/prompt`: the prompt goes to the session as `loom resume` sends one (a busy session
 * queues it), and the run is streamed to the editor until it ends; the answer says how it stopped.
 */
export async function prompt(deps: AcpDeps, params: PromptRequest): Promise<PromptResponse> {
  const { context } = deps;
  const session = await context.store.getSession(params.sessionId);
  if (!session) throw unknownSession(params.sessionId);
  const text = promptText(params.prompt, session.directory);
  const project = await loadPersonProject(context.store, session.directory, context.env, context.settings.dataDir);
  // A session whose first run never started may have no model yet: chosen here, as `loom resume` does.
  const model = session.model ? undefined : chooseModel(undefined, session.agent, project, context.env);
  const missingKey = checkProviderHere(model ?? session.model, project.config, context.env);
  const maxPromptBytes = promptLimit(context.env, project.config);
  checkPromptSize(text, maxPromptBytes, `session ${session.id}`);
  warnOfUnknownCommand(context, text, project.config);
  const { client, searchAttributes } = await deps.ready();
  reportMissingKey(context, missingKey);
  // A run being cancelled (the editor's stop, just before) would drop a prompt queued into it: it waits for that run to close.
  const closing = await cancellingRun(client, session.id);
  if (closing)
    await client.workflow
      .getHandle(session.id, closing)
      .result()
      .catch(() => undefined);
  const cursor = await currentCursor(context.store, session.id);
  const state = deps.turns.begin(session.id);
  const sent = await resumeSession(client, context.store, session, {
    prompt: text,
    maxPromptBytes,
    model,
    host: context.hostId,
    taskQueue: context.settings.taskQueue,
    modelRetry: modelRetryFromEnv(context.env),
    webUrl: context.settings.webUrl,
    searchAttributes,
  });
  const turn = {
    acpSessionId: session.id,
    sessionId: session.id,
    rootId: await rootOf(context.store, session),
    runId: sent.runId,
    directory: session.directory,
    cursor,
    users: false,
    cancelled: () => state.cancelled,
  };
  const stopReason = await deps.turns.track(
    session.id,
    followTurn(context, turn, (update) => deps.send(session.id, update), deps.asker),
  );
  return { stopReason };
}

/** `session/cancel`: the session's run and its subtree are cancelled; the pending prompt answers `cancelled`. */
export async function cancel(deps: AcpDeps, params: CancelNotification): Promise<void> {
  deps.turns.cancel(params.sessionId);
  const { client } = await deps.ready();
  const outcome = await cancelSession(client, params.sessionId, deps.context.store);
  if (outcome === 'not-running') deps.context.report(`loom acp: session ${params.sessionId} had no run to cancel`);
}
