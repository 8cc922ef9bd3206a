import { WorkflowNotFoundError, type Client, type WorkflowHandle } from '@temporalio/client';
import { localHostId, storedHostOr } from '../../activities/hosts/host-id.js';
import type { PromptRecords } from '../../activities/store/prompts.js';
import type { SessionRecords } from '../../activities/store/sessions.js';
import type { Budget } from '../../core/runs/budget.js';
import { newId } from '../../core/records/ids.js';
import { escapeMarkdown, escapeMarkdownInline } from '../../core/text/markdown-escape.js';
import { preview, previewLine } from '../../core/records/prompt.js';
import type { ModelRetry, SessionRunInput } from '../../core/runs/run.js';
import type { Session } from '../../core/records/session.js';
import { AgentAttribute, RootSessionAttribute, withSearchAttributes } from '../../core/runs/search-attributes.js';
import { interactivePriority } from '../../core/runs/task-priority.js';
import { promptSignal } from '../../workflows/api.js';
import { sessionWorkflow } from '../../workflows/index.js';
import { savePrompt } from './sent-prompts.js';
import { sessionPageUrl, webLinkDetails } from '../../core/runs/web-links.js';
import { rootSessionOf } from '../../activities/session/session-root.js';
import { CANCELLED_BEFORE_START, runNeverStarted } from './unstarted-run.js';

export type SessionHandle = WorkflowHandle<typeof sessionWorkflow>;

export interface StartOptions {
  prompt: string;
  /** Prompts over this many bytes are refused (see `promptLimit`). */
  maxPromptBytes: number;
  agent: string;
  model?: string;
  directory: string;
  /** The host id of the machine that holds `directory` (default: this machine's). */
  host?: string;
  taskQueue: string;
  title?: string;
  modelRetry?: ModelRetry;
  /** Where `loom serve`'s web view is, for links from the Temporal UI. */
  webUrl?: string;
  /** `false`: the namespace lacks Loom's search attributes, so runs carry none (see `checkSearchAttributes`). */
  searchAttributes?: boolean;
  /** The budget of the session and its subagents (`--max-tokens`, `--max-cost`). */
  budget?: Budget;
  /** Milliseconds the run may take before it is cancelled (`--timeout`). */
  timeoutMs?: number;
}

/** Starts a new root session: a run of `sessionWorkflow` whose workflow id is the session id. */
export async function startSession(
  client: Client,
  store: PromptRecords & SessionRecords,
  options: StartOptions,
): Promise<{ sessionId: string; handle: SessionHandle }> {
  const sessionId = newId('ses', Date.now(), Math.random);
  const promptId = await savePrompt(store, sessionId, options.prompt, options.maxPromptBytes);
  const input: SessionRunInput = {
    sessionId,
    directory: options.directory,
    host: options.host ?? localHostId(),
    agent: options.agent,
    model: options.model,
    promptId,
    title: options.title,
    modelRetry: options.modelRetry,
    ...(options.webUrl ? { webUrl: options.webUrl } : {}),
    searchAttributes: options.searchAttributes === false ? false : undefined,
    ...(options.budget ? { budget: options.budget } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    byPerson: true,
  };
  const handle = await client.workflow.start(sessionWorkflow, {
    workflowId: sessionId,
    taskQueue: options.taskQueue,
    args: [input],
    ...runMetadata(sessionId, options.agent, options.title ?? options.prompt, options.prompt, sessionId, options),
  });
  return { sessionId, handle };
}

export interface ResumeOptions {
  prompt: string;
  agent?: string;
  model?: string;
  taskQueue: string;
  /**
   * For a session of an older version, which has no host yet: the machine that holds its directory (default: this one).
   */
  host?: string;
  modelRetry?: ModelRetry;
  /** Where `loom serve`'s web view is, for links from the Temporal UI. */
  webUrl?: string;
  /** `false`: the namespace lacks Loom's search attributes, so runs carry none (see `checkSearchAttributes`). */
  searchAttributes?: boolean;
  /** Milliseconds the run may take before it is cancelled (`--timeout`). */
  timeoutMs?: number;
}

/** A prompt on its way to a session: the run it went to, which may be the one it started. */
export interface SentPrompt {
  promptId: string;
  runId: string;
  handle: SessionHandle;
}

/**
 * Sends a prompt to an existing session. A busy session queues it for its next step; an idle one
 * gets a new run under the same workflow id, which restores its history from the store.
 */
export async function resumeSession(
  client: Client,
  store: PromptRecords & SessionRecords,
  session: Session,
  options: ResumeOptions & { maxPromptBytes: number },
): Promise<SentPrompt> {
  const promptId = await savePrompt(store, session.id, options.prompt, options.maxPromptBytes);
  return sendPrompt(client, store, session, promptId, options);
}

/**
 * Sends a prompt already in the store to a session (see `resumeSession`). Sending it again, after
 * a run closed without taking it, is how it starts the next run.
 */
export async function sendPrompt(
  client: Client,
  store: SessionRecords,
  session: Session,
  promptId: string,
  options: ResumeOptions,
): Promise<SentPrompt> {
  const agent = options.agent ?? session.agent;
  const input: SessionRunInput = {
    sessionId: session.id,
    directory: session.directory,
    host: storedHostOr(session.host, options.host),
    agent,
    model: options.model,
    parentId: session.parentID,
    modelRetry: options.modelRetry,
    ...(options.webUrl ? { webUrl: options.webUrl } : {}),
    searchAttributes: options.searchAttributes === false ? false : undefined,
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    byPerson: true,
  };
  const started = await client.workflow.signalWithStart(sessionWorkflow, {
    workflowId: session.id,
    taskQueue: options.taskQueue,
    args: [input],
    signal: promptSignal,
    signalArgs: [{ promptId }],
    ...runMetadata(session.id, agent, session.title, options.prompt, await rootOf(store, session), options),
  });
  const runId = started.signaledRunId;
  return { promptId, runId, handle: client.workflow.getHandle(session.id, runId) };
}

/**
 * What a cancellation did: requested it of the open run (a worker carries it out), ended at once a
 * run no worker had started (`ended`: nothing of it ran), or found nothing running.
 */
export type CancelOutcome = 'cancelled' | 'ended' | 'not-running';

/**
 * Requests cancellation of a session's open run; cancellation reaches its activities and children.
 * With the store, subagents still busy after the run that started them (background ones, which a
 * run's cancellation does not reach) are cancelled too, down the tree.
 */
export async function cancelSession(client: Client, sessionId: string, store?: SessionRecords): Promise<CancelOutcome> {
  // No row yet: the run was started (by `loom serve` with no worker, say) and nothing of it exists but the run.
  const own = await cancelRun(client, sessionId, store !== undefined && !(await store.getSession(sessionId)));
  if (!store) return own;
  const below = await cancelBusyDescendants(client, store, sessionId);
  return own === 'not-running' && below ? 'cancelled' : own;
}

/** Cancels the runs of a session's busy descendants; whether there was any. */
async function cancelBusyDescendants(client: Client, store: SessionRecords, sessionId: string): Promise<boolean> {
  let any = false;
  for (const child of await store.children(sessionId)) {
    if (child.status === 'busy' && (await cancelRun(client, child.id)) !== 'not-running') any = true;
    // A finished subagent may have started background ones of its own.
    if (await cancelBusyDescendants(client, store, child.id)) any = true;
  }
  return any;
}

async function cancelRun(client: Client, sessionId: string, unstored = false): Promise<CancelOutcome> {
  const handle = client.workflow.getHandle(sessionId);
  try {
    const description = await handle.describe();
    if (description.status.name !== 'RUNNING') return 'not-running';
    // A cancellation waits for a worker to carry it out; a new session's run none has started has nothing to clean up.
    if (unstored && (await runNeverStarted(client, { workflowId: sessionId, runId: description.runId }))) {
      await client.workflow.getHandle(sessionId, description.runId).terminate(CANCELLED_BEFORE_START);
      return 'ended';
    }
    await handle.cancel();
    return 'cancelled';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return 'not-running';
    throw error;
  }
}

/**
 * What the Temporal UI shows for a run (a one-line summary, the prompt, searchable ids), and its
 * place in the task queue: a person sent the prompt and waits, so the run goes ahead of batches.
 */
function runMetadata(
  sessionId: string,
  agent: string,
  title: string,
  prompt: string,
  rootId: string,
  options: { webUrl?: string; searchAttributes?: boolean },
) {
  const { webUrl } = options;
  return {
    staticSummary: `${escapeMarkdownInline(agent)} · ${escapeMarkdownInline(previewLine(title))}`,
    staticDetails: `**Prompt**\n\n${escapeMarkdown(preview(prompt.trim()))}${webLinkDetails(webUrl && sessionPageUrl(webUrl, sessionId))}`,
    ...withSearchAttributes(options.searchAttributes, [
      { key: AgentAttribute, value: agent },
      { key: RootSessionAttribute, value: rootId },
    ]),
    priority: interactivePriority,
  };
}

/** The root of a session's tree, where its permission requests are answered. */
export async function rootOf(store: SessionRecords, session: Session): Promise<string> {
  return session.parentID ? rootSessionOf(store, session.id) : session.id;
}
