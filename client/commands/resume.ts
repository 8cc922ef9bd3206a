import { cancellingRun, promptFate } from '../services/cancelled-prompts.js';
import { InputError } from '../input-error.js';
import type { ClientContext } from '../context.js';
import {
  checkModelFlag,
  checkProviderHere,
  chooseModel,
  modelRetryFromEnv,
  reportMissingKey,
} from '../services/model-choice.js';
import { warnOfUnknownCommand } from '../slash-commands.js';
import { chooseAgent, loadProjectAgents } from '../services/project-agents.js';
import { currentCursor } from '../follow/session-changes.js';
import { checkPromptSize, promptLimit, savePrompt } from '../services/sent-prompts.js';
import { rootOf, sendPrompt } from '../services/sessions.js';
import { watchRun } from '../follow/watch-run.js';
import { timeoutFlag } from '../timeout-flag.js';
import { printOutcome } from './outcome.js';
import { followTree } from './background-runs.js';
import {
  CONTINUE_TIMED_OUT,
  endedTimedOut,
  unansweredPrompt,
  type UnansweredPrompt,
} from '../services/unanswered-prompt.js';
import type { Session } from '../../core/records/session.js';
import { previewLine } from '../../core/records/prompt.js';
import { BUDGET_FLAG_NAMES, budgetFlags, cliChecked } from './budget-flags.js';
import { budgetBeforeResume, checkBudgetPrices } from '../services/budgets.js';
import { storedHostOr } from '../../activities/hosts/host-id.js';
import { confirmWaitingConfig } from './config.js';
import { sessionInFolder } from '../services/session-folder.js';

/** Each round waits for a cancelled run to close; more than this many means something is wrong. */
const MAX_ROUNDS = 5;

export interface ResumeOptions {
  agent?: string;
  model?: string;
  maxTokens?: string;
  maxCost?: string;
  timeout?: string;
  json?: boolean;
  /** Leave background subagents still running when the run ends, rather than wait for them. */
  detach?: boolean;
  /** The folder the run works in, when not the session's own (gone, say). */
  dir?: string;
}

/**
 * `loom resume <sessionId> "<prompt>"`: a new run of the session with its history (queued if it is
 * busy), followed as `loom run` follows one. With no prompt, the prompt of a run that failed before
 * its model answered is run again, and a run that timed out is continued.
 */
export async function resumeCommand(
  context: ClientContext,
  sessionId: string,
  given: string,
  options: ResumeOptions,
): Promise<number> {
  const timeoutMs = timeoutFlag(options.timeout);
  const stored = await context.store.getSession(sessionId);
  if (!stored) throw new InputError(`Unknown session "${sessionId}". \`loom ls\` lists sessions.`);
  const session = sessionInFolder(stored, context.hostId, options.dir);
  const again = given ? undefined : await promptToRunAgain(context, session);
  const prompt = again?.text ?? given;
  const model = checkModelFlag(options.model);
  // The session's folder is on this machine when it is this machine's session (else its host decides).
  const files =
    storedHostOr(session.host, context.hostId) === context.hostId
      ? await confirmWaitingConfig(context, session.directory, { json: options.json })
      : undefined;
  const project = loadProjectAgents(session.directory, context.env, context.settings.dataDir, files);
  const agent = options.agent ? chooseAgent(options.agent, project) : undefined;
  const agentModel = agent ? project.agents.find((candidate) => candidate.name === agent)?.model : undefined;
  // A session whose first run never started has no model yet: it is chosen here, as for `loom run`.
  const pinned =
    model ?? (session.model ? undefined : chooseModel(undefined, agent ?? session.agent, project, context.env));
  // The model this run will use, as the run decides it (see prepareRun): checked here, where the user typed.
  const runModel = pinned ?? agentModel ?? session.model;
  const missingKey = checkProviderHere(runModel, project.config, context.env);
  const budget = budgetFlags(options);
  cliChecked(() => checkBudgetPrices(budget, runModel, project.config, sessionId));
  const maxPromptBytes = promptLimit(context.env, project.config);
  checkPromptSize(prompt, maxPromptBytes, `session ${sessionId}`);
  warnOfUnknownCommand(context, prompt, project.config);
  const json = Boolean(options.json);
  let cursor = await currentCursor(context.store, sessionId);
  const { client, searchAttributes } = await context.temporal();
  await context.ensureWorker();
  reportMissingKey(context, missingKey);
  const spent = await cliChecked(() => budgetBeforeResume(context.store, sessionId, budget, BUDGET_FLAG_NAMES));
  if (spent) throw new InputError(spent);
  const promptId = await savePrompt(context.store, sessionId, prompt, maxPromptBytes);
  // The failed run's prompt and empty answer give way to the run again, so the transcript holds the prompt once.
  if (again?.messageIds.length) await context.store.removeMessages(sessionId, again.messageIds);
  const rootId = await rootOf(context.store, session);
  const sending = {
    prompt,
    agent,
    model: pinned,
    host: context.hostId,
    taskQueue: context.settings.taskQueue,
    modelRetry: modelRetryFromEnv(context.env),
    webUrl: context.settings.webUrl,
    searchAttributes,
    timeoutMs,
  };

  // A run being cancelled would drop a prompt queued into it: the prompt waits for that run to
  // close and starts the next one. A cancel that lands just after the check is caught below.
  for (let round = 1; round <= MAX_ROUNDS; round++) {
    const closing = await cancellingRun(client, sessionId);
    if (closing) {
      context.report(`Session ${sessionId} is being cancelled; your prompt will start its next run.`);
      const ended = await watchRun(context, client.workflow.getHandle(sessionId, closing), sessionId, cursor, {
        quiet: true,
        rootId,
        runId: closing,
      });
      if (ended.status === 'detached' || ended.cancelledHere) {
        context.report(`Your prompt was not sent to ${sessionId}. \`loom resume ${sessionId} "…"\` sends it again.`);
        return printOutcome(context, ended, json);
      }
      cursor = await currentCursor(context.store, sessionId);
      continue;
    }
    const sent = await sendPrompt(client, context.store, session, promptId, sending);
    const since = cursor;
    const outcome = await watchRun(context, sent.handle, sessionId, cursor, { quiet: json, rootId, runId: sent.runId });
    if (outcome.status === 'cancelled' && !outcome.cancelledHere) {
      const fate = await promptFate(client, context.store, { sessionId, runId: sent.runId, promptId, since: cursor });
      if (fate === 'dropped') {
        context.report(
          `Session ${sessionId} was cancelled before it took your prompt; your prompt starts its next run.`,
        );
        cursor = await currentCursor(context.store, sessionId);
        continue;
      }
    }
    const after = await currentCursor(context.store, sessionId);
    const exitCode = printOutcome(context, outcome, json);
    if (outcome.status !== 'detached') {
      const detach = Boolean(options.detach);
      await followTree(context, { rootId, sessionId, runId: sent.runId, since, cursor: after, json, detach });
    }
    return exitCode;
  }
  throw new InputError(
    `Session ${sessionId} was cancelled ${MAX_ROUNDS} times while your prompt waited for a run; it was not run. ` +
      `\`loom show ${sessionId}\` shows the session; \`loom resume ${sessionId} "…"\` sends the prompt again.`,
  );
}

/** `loom resume <id>` with no prompt: the prompt of the session's failed run, or an error that says what to do. */
async function promptToRunAgain(context: ClientContext, session: Session): Promise<UnansweredPrompt> {
  const again = await unansweredPrompt(context.store, session);
  if (!again && (await endedTimedOut(context.store, session))) {
    context.report(`Continuing ${session.id}, whose last run timed out: "${CONTINUE_TIMED_OUT}"`);
    return { text: CONTINUE_TIMED_OUT, messageIds: [] };
  }
  const retry = `\`loom resume ${session.id} "…"\` (or the prompt on stdin)`;
  if (!again) {
    const why =
      session.status === 'busy'
        ? 'it is running'
        : session.status === 'failed'
          ? 'a prompt is run again only when its run failed before the model answered or timed out'
          : 'its last prompt has its answer';
    throw new InputError(
      `No prompt given, and session ${session.id} has none to run again (${why}). Pass one: ${retry}.`,
      2,
    );
  }
  context.report(`Running the prompt of ${session.id}'s failed run again: "${previewLine(again.text)}"`);
  return again;
}
