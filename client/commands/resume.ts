import { CliError } from '../cli-error.js';
import type { CliContext } from '../context.js';
import { checkModelFlag, modelRetryFromEnv } from '../model-choice.js';
import { chooseAgent, loadProjectAgents } from '../project-agents.js';
import { currentCursor } from '../render/follow.js';
import { checkPromptSize, promptLimit } from '../prompts.js';
import { resumeSession, rootOf } from '../sessions.js';
import { watchRun } from '../watch-run.js';
import { printOutcome } from './outcome.js';

/** `loom resume <sessionId> "<prompt>"`: a new run of the session with its history (queued if it is busy). */
export async function resumeCommand(
  context: CliContext,
  sessionId: string,
  prompt: string,
  options: { agent?: string; model?: string; json?: boolean },
): Promise<number> {
  const session = await context.store.getSession(sessionId);
  if (!session) throw new CliError(`Unknown session "${sessionId}". \`loom ls\` lists sessions.`);
  const model = checkModelFlag(options.model);
  const agent = options.agent ? chooseAgent(options.agent, loadProjectAgents(session.directory, context.env, context.settings.dataDir)) : undefined;
  const maxPromptBytes = promptLimit(session.directory, context.env);
  checkPromptSize(prompt, maxPromptBytes, `session ${sessionId}`);
  const cursor = await currentCursor(context.store, sessionId);
  const { client } = await context.temporal();
  await context.ensureWorker();
  const handle = await resumeSession(client, context.store, session, {
    prompt,
    maxPromptBytes,
    agent,
    model,
    taskQueue: context.settings.taskQueue,
    modelRetry: modelRetryFromEnv(context.env),
  });
  const outcome = await watchRun(context, handle, sessionId, cursor, { quiet: Boolean(options.json), rootId: await rootOf(context.store, session) });
  return printOutcome(context, outcome, Boolean(options.json));
}
