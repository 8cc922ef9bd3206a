import type { Tokens } from './message.js';

/** How model calls are retried on rate limits, overload, 5xx and network errors. */
export interface ModelRetry {
  maximumAttempts: number;
  initialIntervalMs: number;
  maximumIntervalMs: number;
}

export const defaultModelRetry: ModelRetry = { maximumAttempts: 8, initialIntervalMs: 2_000, maximumIntervalMs: 60_000 };

/** The input of one run of `sessionWorkflow`: ids and control data, never the transcript. */
export interface SessionRunInput {
  sessionId: string;
  /** The project directory the tools work in. */
  directory: string;
  agent: string;
  /** `provider/model` */
  model: string;
  /** The new prompt. Absent when the prompt arrives by signal (resume of a busy session). */
  prompt?: string;
  parentId?: string;
  title?: string;
  modelRetry?: ModelRetry;
  /** State handed over by continue-as-new. */
  carried?: CarriedState;
}

export interface CarriedState {
  step: number;
  tokens: Tokens;
  queued: string[];
  userMessageId: string;
}

export interface SessionRunResult {
  sessionId: string;
  status: 'completed';
  /** The final answer (cut at `FINAL_TEXT_LIMIT`; the whole text is in the store). */
  text: string;
  finish: string;
  tokens: Tokens;
  steps: number;
}

export const FINAL_TEXT_LIMIT = 32 * 1024;

/** What a run reports while it works (the `progress` query). */
export interface RunProgress {
  sessionId: string;
  agent: string;
  model: string;
  step: number;
  phase: 'starting' | 'model' | 'tools' | 'done';
  tokens: Tokens;
  queued: number;
}
