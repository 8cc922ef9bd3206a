import { ActivityFailure, ApplicationFailure, setCurrentDetails } from '@temporalio/workflow';
import { spendAgainstBudget, type BudgetLine } from '../../core/runs/budget.js';
import type { MessageError } from '../../core/records/message.js';
import { zeroTokens } from '../../core/records/tokens.js';
import { hostWaitText } from '../../core/runs/host-wait.js';
import { escapeMarkdownInline } from '../../core/text/markdown-escape.js';
import type { PreparedCommand } from '../../activities/session/command-activities.js';
import type { IdSequence } from '../../core/records/ids.js';
import type { QueuedPrompt } from '../../core/records/prompt.js';
import type { RunConfig, RunProgress, SessionRunInput } from '../../core/runs/run.js';
import type { Placement } from '../activity-policies.js';
import type { PermissionGate } from './permission-gate.js';
import { failureMessage } from './failure-message.js';
import { WaitingBoard } from './waiting.js';

/** What steers one run; everything else lives in the session store. */
export interface RunState {
  step: number;
  phase: RunProgress['phase'];
  tokens: RunProgress['tokens'];
  /** Prompts waiting for the next step. */
  queued: QueuedPrompt[];
  /** Where this run draws its ids (see `drawId`). */
  ids?: IdSequence;
  userMessageId: string;
  assistantMessageId?: string;
  text: string;
  finish: string;
  /** Known once `prepareRun` has run (or carried over by continue-as-new). */
  config?: RunConfig;
  gate?: PermissionGate;
  recentCalls: string[];
  /** The current turn came from an @mention or a command: its task calls do not ask. */
  bypassTaskAsk: boolean;
  /** A command's subtask waiting to run as the next step. */
  subtask?: PreparedCommand;
  /** The context filled up: compact before the next model call (`overflow`: the call failed on it). */
  compactNext?: 'full' | 'overflow';
  lastCompactionStep?: number;
  title?: string;
  /** Workspace tools wait for this host, which no worker serves (see `whileHostWaits`). */
  waitingForHost?: string;
  /** Session ids of the background subagents started in this chain of runs: a cancelled run cancels them. */
  backgroundChildren: string[];
  /** The permission requests waiting in this run's subtree (its own and its subagents'). */
  waiting: WaitingBoard;
  /** The budgets over the run as its last step found them (see budget-check.ts). */
  budgets?: BudgetLine[];
}

export function initialState(input: SessionRunInput): RunState {
  const carried = input.carried;
  const state: Omit<RunState, 'waiting'> & { waiting?: WaitingBoard } = {
    step: carried?.step ?? 0,
    phase: 'starting',
    tokens: carried?.tokens ?? zeroTokens(),
    queued: [...(carried?.queued ?? []), ...(input.promptId !== undefined ? [{ promptId: input.promptId }] : [])],
    userMessageId: carried?.userMessageId ?? '',
    ids: carried?.ids,
    text: '',
    finish: 'unknown',
    config: carried?.config,
    recentCalls: carried?.recentCalls ?? [],
    bypassTaskAsk: false,
    title: carried?.title ?? input.title,
    backgroundChildren: carried?.backgroundChildren ?? [],
  };
  state.waiting = new WaitingBoard(
    { id: input.sessionId, parentId: input.parentId, searchAttributes: input.searchAttributes },
    carried?.waiting,
    () => showProgress(state as RunState),
  );
  return state as RunState;
}

/** The failure to record on the assistant message, or undefined for errors that are bugs. */
export function describeFailure(error: unknown): MessageError | undefined {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure) {
    return { name: cause.type ?? 'Error', message: cause.message, retryable: !cause.nonRetryable };
  }
  if (error instanceof ActivityFailure) return { name: 'ActivityFailure', message: failureMessage(error) };
  return undefined;
}

/**
 * The run's current details in the Temporal UI: what it waits for first (a person's approval, a
 * worker), then its title, agent and progress. Titles come from models: escaped.
 */
export function showProgress(state: RunState): void {
  const total = state.tokens.input + state.tokens.output + state.tokens.cache.read;
  const blocks = [
    ...state.waiting.details(),
    ...(state.waitingForHost ? [hostWaitDetails(state.waitingForHost)] : []),
    ...(state.title ? [`**${escapeMarkdownInline(state.title)}**`] : []),
    `**${escapeMarkdownInline(state.config?.agent.name ?? '…')}** · ${escapeMarkdownInline(state.config?.model ?? '…')}`,
    `step ${state.step} · ${state.phase} · ${total} tokens` +
      (state.queued.length ? ` · ${state.queued.length} queued` : ''),
    ...budgetDetails(state.budgets),
  ];
  setCurrentDetails(blocks.join('\n\n'));
}

function hostWaitDetails(host: string): string {
  return `⏳ ${hostWaitText(escapeMarkdownInline(host))}`;
}

function budgetDetails(lines: BudgetLine[] | undefined): string[] {
  const owner = (line: BudgetLine) => (line.kind === 'batch' ? `batch ${line.owner}` : `tree of ${line.owner}`);
  return (lines ?? []).map((line) => `budget (${owner(line)}): ${spendAgainstBudget(line)}`);
}

/** Where the run's workspace activities go (its host, and how long they wait for it). */
export function placementOf(input: SessionRunInput, state: RunState): Placement {
  return { host: input.host, waitMs: state.config?.hostWaitMs };
}
