import type { Budget } from './budget.js';
import type { IdSequence } from '../records/ids.js';
import type { Tokens } from '../records/message.js';
import type { CompactionSettings, ModelLimit } from '../models/compaction.js';
import type { Ruleset } from '../rules/permission.js';
import type { QueuedPrompt } from '../records/prompt.js';

/** The failure type of a run that ran out of time: a parent's task call and the CLI read it. */
export const RUN_TIMED_OUT = 'RunTimedOut';

/** How model calls are retried on rate limits, overload, 5xx and network errors. */
export interface ModelRetry {
  maximumAttempts: number;
  initialIntervalMs: number;
  maximumIntervalMs: number;
}

export const defaultModelRetry: ModelRetry = {
  maximumAttempts: 8,
  initialIntervalMs: 2_000,
  maximumIntervalMs: 60_000,
};

/** The input of one run of `sessionWorkflow`: ids and control data, never the transcript. */
export interface SessionRunInput {
  sessionId: string;
  /** The project directory the tools work in. */
  directory: string;
  /** The host id of the machine that holds `directory`: its tools run on that host's task queue. */
  host: string;
  /** The agent to run; the configured default agent (or the session's) when absent. */
  agent?: string;
  /** `provider/model`; when absent: the agent's model, the session's, or the configured default. */
  model?: string;
  /**
   * The new prompt, by its id in the session store. Absent when the prompt arrives by signal
   * (resume of a busy session).
   */
  promptId?: string;
  parentId?: string;
  /** For a subagent's run: the parent's `task` tool part, which shows this session's progress. */
  parentPartId?: string;
  /** For a subagent's run: rules the parent sets on the child session (its denies, no todo list, …). */
  sessionRules?: Ruleset;
  title?: string;
  modelRetry?: ModelRetry;
  /** Where `loom serve`'s web view is: runs link to their session's page in the Temporal UI. */
  webUrl?: string;
  /**
   * `false` when the namespace lacks Loom's search attributes and Loom could not add them: this run,
   * and every run it starts, sets none (the server would refuse them). Absent: they are set.
   */
  searchAttributes?: false;
  /**
   * A background subagent's run: when it ends, its outcome is sent to this parent session as a
   * prompt (see `notifyParent`), which wakes the parent if it is idle.
   */
  deliverTo?: { sessionId: string; partId: string };
  /** A task of a batch: its prompt, agent and title are read from the store. */
  batchTask?: { batchId: string; index: number };
  /** Leave the answer's text out of the result (batches read it from the store). */
  quietResult?: boolean;
  /** Compact the session instead of answering a prompt (`loom compact`). */
  compact?: boolean;
  /**
   * A new budget for this session and every subagent under it (`--max-tokens`, `--max-cost`): kept on the
   * session in the store, where every run of the tree reads it (see workflows/session/budget-check.ts).
   */
  budget?: Budget;
  /** Milliseconds this run may take before it is cancelled (`--timeout`, or a subagent agent's `timeout`). */
  timeoutMs?: number;
  /**
   * A person started this run (the CLI, the web view, an editor), not an agent's work: the
   * project's config files are taken as they are unless an agent's work changed them (see
   * activities/config/trust.ts).
   */
  byPerson?: boolean;
  /** State handed over by continue-as-new. */
  carried?: CarriedState;
}

export interface CarriedState {
  step: number;
  tokens: Tokens;
  /** Prompts not yet taken. */
  queued: QueuedPrompt[];
  userMessageId: string;
  /** Where the run draws its ids (absent until it drew one). */
  ids?: IdSequence;
  config: RunConfig;
  /** Recent tool calls (`tool:digest`), for the doom-loop guard. */
  recentCalls: string[];
  title?: string;
  /** Background subagents this run (or the runs before it) started: cancelled with it. */
  backgroundChildren?: string[];
  /** Permission requests waiting below the run (see workflows/session/waiting.ts). */
  waiting?: CarriedWaiting;
  /** When the run's time limit passes (workflow time, ms since the epoch), if it has one. */
  deadline?: number;
}

/** A permission request waiting for a person somewhere in a session's tree, as the Temporal UI shows it. */
export interface WaitingRequest {
  /** The request (`per_…`): what `loom approve` takes. */
  id: string;
  /** The session whose run asks. */
  sessionId: string;
  /** `bash · npm test`: what a person approving sees. */
  title: string;
  tool: string;
  agent?: string;
}

/** What a run hands over by continue-as-new: its subagents' latest lists, and what it last told its parent. */
export interface CarriedWaiting {
  children: Record<string, WaitingRequest[]>;
  reported: WaitingRequest[];
}

/** What a run decided at its start from the configuration (the `prepareRun` activity). */
export interface RunConfig {
  agent: {
    name: string;
    mode: 'primary' | 'subagent' | 'all';
    steps?: number;
    permission: Ruleset;
  };
  model: string;
  /** Tools the agent may be offered (those its rules do not deny outright). */
  tools: string[];
  /** The session's own rules, evaluated after the agent's. */
  sessionRules: Ruleset;
  /** "Always" approvals of the session tree so far. */
  approved: Ruleset;
  rootId: string;
  /** Identical tool calls in a row that trigger the `doom_loop` permission. */
  doomLoopThreshold: number;
  /** How long a workspace tool waits for its host's worker before the model is told (`host_wait`). */
  hostWaitMs?: number;
  /** How long a permission request waits for a reply (no limit when unset). */
  permissionTimeoutMs?: number;
  /** Ancestors of this session: 0 for a root session. */
  depth: number;
  /** How deep subagents may nest (`subagent_depth`, default 1). */
  subagentDepth: number;
  /** Task calls of one run that may run at once (`max_concurrent_subagents`, default 8). */
  maxConcurrentSubagents: number;
  /** Every agent a `task` call may name. */
  subagents: SubagentInfo[];
  /** Names of the configured slash commands. */
  commands: string[];
  /** The model's window, when known (config, or OpenAI's published limits). */
  limit?: ModelLimit;
  compaction: CompactionSettings;
  /** Usage of the session's last finished step before this run: a full context compacts first. */
  lastStepTokens?: Tokens;
  /** Name new root sessions with the `title` agent. */
  autoTitle: boolean;
  /** Snapshot the files around steps that may change them (`snapshot`, default true). */
  snapshot: boolean;
  /** Tools only primary agents get (`experimental.primary_tools`). */
  primaryTools: string[];
  /** Some budget covers this session (its tree's, an ancestor's, a batch's): each step first checks the spend. */
  budgeted?: boolean;
  /** The budget `openSession` sets on the session: the run's own, or a new session's from its agent or loom.json. */
  budget?: Budget;
  /**
   * The project part of the configuration as the workspace's host read it, by its id in the
   * session store (`wsc_…`, derived from its content): model calls, compaction and titles, which
   * may run on a worker without the workspace, configure themselves from it.
   */
  workspaceConfigId: string;
}

export interface SubagentInfo {
  name: string;
  mode: 'primary' | 'subagent' | 'all';
  model?: string;
  /** The agent's own rules name `task`: it may delegate further, depth permitting. */
  hasTaskRule: boolean;
  /** Milliseconds each of its runs as a subagent may take (the agent's `timeout`). */
  timeout?: number;
}

export interface SessionRunResult {
  sessionId: string;
  status: 'completed';
  /** The start of the final answer, for the Temporal UI; the whole text is in the store. */
  text: string;
  finish: string;
  tokens: Tokens;
  steps: number;
}

/** What a run reports while it works (the `progress` query). */
export interface RunProgress {
  sessionId: string;
  agent: string;
  model: string;
  step: number;
  phase: 'starting' | 'model' | 'tools' | 'done';
  tokens: Tokens;
  queued: number;
  /** Workspace tools wait for this host, which no worker serves. */
  waitingForHost?: string;
}

/** The workflow type of a session's run, and the signal that brings it a prompt (see workflows/api.ts). */
export const SESSION_WORKFLOW_TYPE = 'sessionWorkflow';
export const PROMPT_SIGNAL = 'prompt';
