import { lastAnswer } from '../../activities/session/last-text.js';
import { addTokens, zeroTokens, type MessageError, type Tokens } from '../../core/records/message.js';
import type { SessionRunResult } from '../../core/runs/run.js';
import { progressQuery } from '../../workflows/api.js';
import type { ClientContext } from '../context.js';
import { enums } from '../../activities/hosts/proto-enums.js';
import { runFailure } from './run-failure.js';
import { followSession } from './session-changes.js';
import { PermissionPrompter } from '../render/permission-prompter.js';
import { RunPrinter } from '../render/run-printer.js';
import { formatDuration, reconnectLimit, RunFollower, type Followed } from './run-follower.js';
import type { SessionHandle } from '../services/sessions.js';
import { isTransportError } from '../temporal/transport-error.js';
import { hasSetupHint, ModelFailure, SETUP_ATTEMPTS } from '../../activities/model/failure-kinds.js';
import { hostWaitText } from '../../core/runs/host-wait.js';

const FIRST_CHECK_MS = 2_000;
const PERMISSION_CHECK_MS = 300;
const WATCHDOG_EVERY_MS = 5_000;
/** A live worker takes a workflow task within milliseconds; this long means there is none. */
const UNPICKED_TASK_MS = 1_500;
/** After an outage, workers reconnect on their own schedule: give them this long before starting one here. */
const RECONNECT_GRACE_MS = 15_000;

export interface RunOutcome {
  sessionId: string;
  status: 'completed' | 'failed' | 'cancelled' | 'detached';
  text: string;
  tokens: Tokens;
  steps?: number;
  error?: MessageError;
  /** The person at this command cancelled the run (Ctrl-C), rather than someone else. */
  cancelledHere?: boolean;
  /** The error was printed as it happened: the last line need not repeat it. */
  errorShown?: boolean;
}

/**
 * Waits for a run, printing it as it goes (unless `quiet`), and brings its permission requests (and
 * those of its subagents) to the person at the terminal. Ctrl-C cancels the run; a second Ctrl-C,
 * or SIGTERM, leaves it running. If no worker picks the run up, one starts in this process. An
 * unreachable Temporal server is waited for (see `RunFollower`), up to `LOOM_FOLLOW_RECONNECT_MS`.
 */
export async function watchRun(
  context: ClientContext,
  handle: SessionHandle,
  sessionId: string,
  cursor: number,
  options: {
    quiet: boolean;
    rootId?: string;
    /** The run to follow, when the handle does not say. */
    runId?: string;
    /** Ctrl-C leaves the run rather than cancelling it (a wake-up run the person did not start here). */
    leaveOnInterrupt?: boolean;
  },
): Promise<RunOutcome> {
  const limitMs = reconnectLimit(context.env);
  const { client, address, target } = await context.temporal();
  const follower = new RunFollower(
    { temporal: target, workflowId: handle.workflowId, runId: options.runId ?? runIdOf(handle) },
    { limitMs, report: context.report },
  );
  let detach: (outcome: RunOutcome) => void = () => undefined;
  const detached = new Promise<RunOutcome>((resolve) => (detach = resolve));
  let cancelledHere = false;
  const outcome = Promise.race([
    follower
      .result()
      .then(async (followed) => ({ ...(await settle(followed)), ...(cancelledHere ? { cancelledHere } : {}) })),
    detached,
  ]);

  let interrupts = 0;
  const onInterrupt = () => {
    interrupts++;
    if (interrupts === 1 && !options.leaveOnInterrupt) {
      cancelledHere = true;
      context.report(`\nCancelling ${sessionId} … (Ctrl-C again to leave it running)`);
      handle
        .cancel()
        .catch((error: Error) =>
          context.report(
            isTransportError(error)
              ? `Could not cancel ${sessionId}: the Temporal server at ${address} is unreachable. \`loom cancel ${sessionId}\` cancels it once the server is back.`
              : `Could not cancel ${sessionId}: ${error.message}`,
          ),
        );
    } else {
      detach({ sessionId, status: 'detached', text: '', tokens: zeroTokens() });
    }
  };
  const onTerminate = () => detach({ sessionId, status: 'detached', text: '', tokens: zeroTokens() });
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onTerminate);
  const interactive = !options.quiet && context.interactive;
  // Permission requests are read from the store, so this check carries on while Temporal is away.
  const prompter = new PermissionPrompter(
    client,
    context.store,
    options.rootId ?? sessionId,
    interactive,
    context.report,
  );
  let checking = false;
  const permissions = setInterval(() => {
    if (checking) return;
    checking = true;
    prompter
      .check()
      .catch((error: Error) => context.report(`Could not check permission requests: ${error.message}`))
      .finally(() => (checking = false));
  }, PERMISSION_CHECK_MS);
  const reportedAttempts = new Set<string>();
  let looking = false;
  const check = () => {
    // While the server is away a look would only wait on it; one at a time, so none pile up.
    if (looking || follower.unreachable) return;
    looking = true;
    void checkOnRun(context, handle, reportedAttempts, follower.backAt).finally(() => (looking = false));
  };
  const firstCheck = setTimeout(check, FIRST_CHECK_MS);
  const watchdog = setInterval(check, WATCHDOG_EVERY_MS);
  try {
    if (!options.quiet) {
      const printer = new RunPrinter(process.stdout, process.stderr);
      await followSession(context.store, sessionId, cursor, printer, outcome);
      const ended = await outcome;
      return printer.showed(ended.error) ? { ...ended, errorShown: true } : ended;
    }
    return await outcome;
  } finally {
    clearTimeout(firstCheck);
    clearInterval(permissions);
    clearInterval(watchdog);
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onTerminate);
    await follower.close();
  }

  async function settle(followed: Followed): Promise<RunOutcome> {
    if (followed.kind === 'result') return completed(context, followed.result);
    if (followed.kind === 'error') return failed(context, sessionId, cursor, followed.error);
    return unreachable(context, sessionId, cursor, address, followed);
  }
}

/** The run a handle from `client.workflow.start` started (others do not say). */
export function runIdOf(handle: SessionHandle): string | undefined {
  return (handle as { firstExecutionRunId?: string }).firstExecutionRunId;
}

/** The run's result holds a preview of the answer; the answer itself is in the store. */
async function completed(context: ClientContext, result: SessionRunResult): Promise<RunOutcome> {
  const text = await lastAnswer(context.store, result.sessionId);
  return { sessionId: result.sessionId, status: 'completed', text, tokens: result.tokens, steps: result.steps };
}

async function failed(context: ClientContext, sessionId: string, cursor: number, error: unknown): Promise<RunOutcome> {
  const tokens = await tokensSince(context, sessionId, cursor);
  const failure = runFailure(error);
  if (failure.kind === 'cancelled') return { sessionId, status: 'cancelled', text: '', tokens };
  return { sessionId, status: 'failed', text: '', tokens, error: failure.error };
}

/**
 * The server stayed away past the limit. The run is not known to have failed: it goes on wherever
 * its worker is, so the command stops following it and says how to look in on it later.
 */
async function unreachable(
  context: ClientContext,
  sessionId: string,
  cursor: number,
  address: string,
  lost: { lostForMs: number; reason: string },
): Promise<RunOutcome> {
  const worker = context.hasInProcessWorker
    ? ` This command was running its worker, which stops now: start one with \`loom worker\` so the run can go on.`
    : '';
  const message =
    `Stopped following ${sessionId}: the Temporal server at ${address} has been unreachable for ${formatDuration(lost.lostForMs)} (${lost.reason}). ` +
    `Session ${sessionId} may still be going: \`loom show ${sessionId}\` shows its progress once the server is back.${worker}`;
  context.report(message);
  return {
    sessionId,
    status: 'detached',
    text: '',
    tokens: await tokensSince(context, sessionId, cursor),
    error: { name: 'TemporalUnreachable', message },
  };
}

async function tokensSince(context: ClientContext, sessionId: string, cursor: number): Promise<Tokens> {
  const { messages } = await context.store.changes(sessionId, cursor);
  return messages.reduce((sum, m) => (m.role === 'assistant' ? addTokens(sum, m.tokens) : sum), zeroTokens());
}

/**
 * Looks in on the run: reports activities being retried (a model endpoint failing, say), and when
 * a workflow task waits with nobody taking it, there is no worker, so one starts here.
 */
async function checkOnRun(
  context: ClientContext,
  handle: SessionHandle,
  reportedAttempts: Set<string>,
  serverBackAt: number,
): Promise<void> {
  try {
    const { raw } = await handle.describe();
    for (const activity of raw.pendingActivities ?? []) {
      const attempt = activity.attempt ?? 1;
      const key = `${activity.activityId}:${attempt}`;
      if (attempt < 2 || !activity.lastFailure || reportedAttempts.has(key)) continue;
      // A title is a nicety the run never waits on: its retries would only repeat the answer's.
      if (activity.activityType?.name === 'generateTitle') continue;
      reportedAttempts.add(key);
      const limit = await attemptLimit(context, handle.workflowId, activity);
      context.report(
        `↻ ${activity.activityType?.name} attempt ${attempt}${limit} after: ${activity.lastFailure.message}`,
      );
    }
    await reportHostWait(context, handle, reportedAttempts).catch(() => undefined);
    const task = raw.pendingWorkflowTask;
    const scheduled = Number(task?.scheduledTime?.seconds ?? 0) * 1000;
    const waiting = task?.state === enums.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_SCHEDULED;
    const afterOutage = Date.now() - serverBackAt < RECONNECT_GRACE_MS;
    if (!context.hasInProcessWorker && waiting && !afterOutage && Date.now() - scheduled > UNPICKED_TASK_MS) {
      context.report('No worker picked up the run; running one in this process.');
      await context.ensureWorker(true);
    }
  } catch {
    // The next tick tries again.
  }
}

/**
 * What an attempt counts against: the retry policy's maximum, except for the model call of a
 * session that has never reached its model, which gives up on set-up errors after
 * `SETUP_ATTEMPTS` (see `neverReachedFailure`); on other network errors it may or may not, so
 * those show no limit.
 */
async function attemptLimit(
  context: ClientContext,
  sessionId: string,
  activity: {
    activityType?: { name?: string | null } | null;
    maximumAttempts?: number | null;
    lastFailure?: { message?: string | null; applicationFailureInfo?: { type?: string | null } | null } | null;
  },
): Promise<string> {
  const message = activity.lastFailure?.message ?? '';
  const unreachable =
    activity.activityType?.name === 'callModel' &&
    activity.lastFailure?.applicationFailureInfo?.type === ModelFailure.unreachable;
  if (unreachable && !(await context.store.lastFinishedStep(sessionId))) {
    return hasSetupHint(message) ? `/${SETUP_ATTEMPTS}` : '';
  }
  return activity.maximumAttempts ? `/${activity.maximumAttempts}` : '';
}

/** Says once when the run's workspace tools wait for a host that no worker serves (the run's progress says so). */
async function reportHostWait(context: ClientContext, handle: SessionHandle, reported: Set<string>): Promise<void> {
  const { waitingForHost } = await handle.query(progressQuery);
  const key = `host:${waitingForHost}`;
  if (!waitingForHost) {
    for (const earlier of [...reported].filter((entry) => entry.startsWith('host:'))) reported.delete(earlier);
    return;
  }
  if (reported.has(key)) return;
  reported.add(key);
  context.report(
    `⏳ ${hostWaitText(waitingForHost)} (or with LOOM_HOST_ID=${waitingForHost}); the tools run as soon as one does.`,
  );
}
