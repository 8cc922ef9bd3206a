import { setTimeout as sleep } from 'node:timers/promises';
import pc from 'picocolors';
import { lastOutcome } from '../../activities/session/last-text.js';
import type { ClientContext } from '../context.js';
import { errorMessage } from '../../core/text/error-message.js';
import { currentCursor } from '../follow/session-changes.js';
import { latestRunOf, runningInTree, runLabel, type TreeRun } from '../follow/tree-runs.js';
import { watchRun } from '../follow/watch-run.js';
import { PermissionPrompter } from '../render/permission-prompter.js';
import { plural } from '../render/quantities.js';
import { leftRunning, printOutcome } from './outcome.js';

const POLL_MS = 500;
const PERMISSION_CHECK_MS = 300;
const ANSWER_PREVIEW = 120;
/** Looks in a row that fail (Temporal unreachable, say) before the command stops waiting. */
const MAX_FAILED_LOOKS = 20;

export interface TreeFollowOptions {
  rootId: string;
  /** The session the command ran: its wake-up runs are followed as its run was. */
  sessionId: string;
  /** The command's run of the session: a later run is a wake-up. */
  runId?: string;
  /** Where the session's transcript stood when its run began, and when it ended. */
  since: number;
  cursor: number;
  json: boolean;
  /** `--detach`: say what still runs and leave it. */
  detach: boolean;
}

/**
 * After the command's run has ended, its background subagents may still work, and their reports
 * wake the session up again. A worker in this process is the only one they have, so the command
 * waits for everything open in the tree, saying how each subagent ended and printing the session's
 * wake-up answers, until nothing runs; Ctrl-C or `--detach` leaves them, saying they need a worker.
 * With a worker elsewhere, they go on there and the command only says so.
 */
export async function followTree(context: ClientContext, options: TreeFollowOptions): Promise<void> {
  const access = await context.temporal();
  let first: TreeRun[];
  let ran: string | undefined;
  try {
    first = await runningInTree(access, context.store, options.rootId);
    ran = options.runId && (await latestRunOf(access, options.sessionId, options.runId))?.chain;
  } catch (error) {
    return context.report(cannotLook(context, options.rootId, error));
  }
  const others = first.filter((run) => run.sessionId !== options.sessionId);
  if (!context.hasInProcessWorker) {
    if (others.length === 0) return;
    context.report(
      `⋯ Still running in the worker serving task queue "${context.settings.taskQueue}": ${first.map(named).join(', ')}. ` +
        `\`loom tree ${options.rootId}\` shows them.`,
    );
    return;
  }
  if (options.detach) return reportLeft(context, first);
  const follower = new TreeFollower(context, options, ran);
  // A report may have woken the session, and its run ended, before this first look.
  if (others.length === 0 && !(await follower.woken().catch(() => undefined))) return;
  if (others.length > 0)
    context.report(
      pc.dim(
        `\n⋯ ${plural(others.length, 'background subagent')} still running: waiting for them (Ctrl-C leaves them)`,
      ),
    );
  await follower.follow();
}

class TreeFollower {
  /** Open runs of the tree by session, with whether the store has shown them busy (so an idle status is this run's end). */
  private readonly tracked = new Map<string, TreeRun & { seenBusy: boolean }>();
  /** Runs whose end has been said (a finished subagent's run stays open until its parent takes its report). */
  private readonly said = new Set<string>();
  /** The chain (see `latestRunOf`) of the session's last run followed: the command's own, then each wake-up's. */
  private followed: string | undefined;
  private cursor: number;
  private left = false;
  private following = false;
  private readonly waking = new AbortController();

  constructor(
    private readonly context: ClientContext,
    private readonly options: TreeFollowOptions,
    ran: string | undefined,
  ) {
    this.cursor = options.cursor;
    this.followed = ran;
  }

  /** The session's run since the last one followed, open or (with the command's run known) closed already. */
  async woken(): Promise<string | undefined> {
    const latest = await latestRunOf(await this.context.temporal(), this.options.sessionId);
    if (!latest || latest.chain === this.followed || !(latest.open || this.followed)) return undefined;
    return latest.runId;
  }

  async follow(): Promise<void> {
    const { context, options } = this;
    const access = await context.temporal();
    const leave = () => {
      this.left = true;
      this.waking.abort();
    };
    process.on('SIGINT', leave);
    process.on('SIGTERM', leave);
    const interactive = !options.json && context.interactive;
    const prompter = new PermissionPrompter(access.client, context.store, options.rootId, interactive, context.report);
    // While a wake-up run is followed, its own follower asks.
    const permissions = setInterval(
      () => void (this.following ? undefined : prompter.check().catch(() => undefined)),
      PERMISSION_CHECK_MS,
    );
    let failedLooks = 0;
    let first = true;
    try {
      for (;;) {
        let runs: TreeRun[];
        try {
          runs = await runningInTree(access, context.store, options.rootId);
          failedLooks = 0;
        } catch (error) {
          if (++failedLooks >= MAX_FAILED_LOOKS) return context.report(cannotLook(context, options.rootId, error));
          await sleep(POLL_MS, undefined, { signal: this.waking.signal }).catch(() => undefined);
          continue;
        }
        if (first) await this.sayEndedBefore(runs).catch(() => undefined);
        first = false;
        await this.sayEnded(runs);
        if (this.left) return reportLeft(context, runs);
        const woken = await this.woken().catch(() => undefined);
        if (woken) {
          await this.followWakeUp(woken);
          continue;
        }
        if (runs.length === 0) return;
        await sleep(POLL_MS, undefined, { signal: this.waking.signal }).catch(() => undefined);
      }
    } finally {
      clearInterval(permissions);
      process.off('SIGINT', leave);
      process.off('SIGTERM', leave);
    }
  }

  /**
   * Says how the background subagents the command's run started ended, for those that did before
   * the first look (the others are said as they end).
   */
  private async sayEndedBefore(runs: TreeRun[]): Promise<void> {
    const { store } = this.context;
    const open = new Set(runs.map((run) => run.sessionId));
    const { parts } = await store.changes(this.options.sessionId, this.options.since);
    for (const part of parts) {
      if (part.type !== 'tool' || part.tool !== 'task' || part.state.status !== 'completed') continue;
      const { background, sessionId } = part.state.metadata ?? {};
      if (background !== true || typeof sessionId !== 'string' || open.has(sessionId)) continue;
      await this.sayOutcome({ sessionId, runId: '' });
    }
  }

  /** Says how each subagent's run ended, once: when its run closed, or its session is no longer busy. */
  private async sayEnded(runs: TreeRun[]): Promise<void> {
    const open = new Map(runs.map((run) => [run.sessionId, run]));
    for (const [sessionId, entry] of this.tracked) {
      const now = open.get(sessionId);
      if (now?.runId === entry.runId) {
        if (now.session?.status === 'busy') entry.seenBusy = true;
        // Busy, or idle from its last run and not yet busy in this one: its end is still to come.
        if (now.session?.status === 'busy' || !entry.seenBusy) continue;
      }
      this.tracked.delete(sessionId);
      this.said.add(runKey(entry));
      await this.sayOutcome(entry);
    }
    for (const run of runs) {
      if (run.sessionId === this.options.sessionId || this.tracked.has(run.sessionId) || this.said.has(runKey(run)))
        continue;
      this.tracked.set(run.sessionId, { ...run, seenBusy: run.session?.status === 'busy' });
    }
  }

  private async sayOutcome(run: TreeRun): Promise<void> {
    const session = await this.context.store.getSession(run.sessionId);
    const label = `${run.sessionId} (${runLabel({ session, agent: run.agent })})`;
    const { answer, error } = await lastOutcome(this.context.store, run.sessionId);
    if (session?.status === 'failed')
      this.context.report(pc.red(`✗ ${label} failed: ${error || session.error?.message}`));
    else if (session?.status === 'cancelled') this.context.report(pc.yellow(`■ ${label} was cancelled`));
    else this.context.report(`✓ ${label} finished: ${preview(answer)}`);
  }

  /** A report woke the session: its new run is followed and printed as the command's own was. */
  private async followWakeUp(runId: string): Promise<void> {
    const { context, options } = this;
    const { sessionId } = options;
    const access = await context.temporal();
    this.followed = (await latestRunOf(access, sessionId, runId))?.chain ?? runId;
    this.following = true;
    const outcome = await watchRun(
      context,
      access.client.workflow.getHandle(sessionId, runId),
      sessionId,
      this.cursor,
      {
        quiet: options.json,
        rootId: options.rootId,
        runId,
        leaveOnInterrupt: true,
      },
    ).finally(() => (this.following = false));
    this.cursor = await currentCursor(context.store, sessionId);
    if (outcome.status === 'detached') {
      this.left = true;
      return;
    }
    if (options.json) {
      const said = outcome.status === 'completed' ? `answered: ${preview(outcome.text)}` : outcome.status;
      context.report(`● ${sessionId} woke up and ${said}`);
    } else printOutcome(context, outcome, false);
  }
}

/** What the command leaves running, and that nothing will run it once the command's worker stops. */
function reportLeft(context: ClientContext, runs: TreeRun[]): void {
  for (const run of runs) context.report(leftRunning(context, run.sessionId, ` (${runLabel(run)})`));
}

function cannotLook(context: ClientContext, rootId: string, error: unknown): string {
  const worker = context.hasInProcessWorker ? ' Any still running need a worker to go on: start `loom worker`.' : '';
  return `Could not look for the background subagents of ${rootId} (${errorMessage(error)}).${worker} \`loom tree ${rootId}\` shows them.`;
}

function runKey(run: TreeRun): string {
  return `${run.sessionId}/${run.runId}`;
}

function named(run: TreeRun): string {
  return `${run.sessionId} (${runLabel(run)})`;
}

function preview(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (!line) return '(no answer)';
  return line.length <= ANSWER_PREVIEW ? line : `${line.slice(0, ANSWER_PREVIEW - 1)}…`;
}
