import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, type Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { FilesOutcome, FilesRequest } from '../../activities/snapshot/files-activities.js';
import type { Fork } from '../../activities/snapshot/fork.js';
import { FilesRequestError, type FilesRequestProblem } from '../../activities/snapshot/request-error.js';
import { sessionDiff, type DiffSelection, type FileDiff } from '../../activities/snapshot/session-diff.js';
import type { FilesRestored } from '../../activities/snapshot/session-revert.js';
import type { SessionStore } from '../../activities/store/store.js';
import { storedHostOr } from '../../activities/hosts/host-id.js';
import { sessionFilesWorkflow } from '../../workflows/index.js';
import { escapeMarkdownInline } from '../../core/text/markdown-escape.js';
import { interactivePriority } from '../../core/runs/task-priority.js';

/** Where a request about a session's files goes: Temporal, the shared task queue, and the store. */
export interface FilesAccess {
  client: Client;
  taskQueue: string;
  store: SessionStore;
}

/**
 * Runs a revert, unrevert or fork on the host that holds the session's files, as a workflow
 * (`loom-files-<session>`: one at a time per session), and returns what it did. A request that
 * cannot be done as asked rejects with a `FilesRequestError` that says why.
 */
export async function changeSessionFiles(access: FilesAccess, request: FilesRequest): Promise<FilesOutcome> {
  const session = await access.store.getSession(request.sessionId);
  if (!session)
    throw new FilesRequestError(`Unknown session "${request.sessionId}". \`loom ls\` lists sessions.`, 'unknown');
  let handle;
  try {
    handle = await access.client.workflow.start(sessionFilesWorkflow, {
      workflowId: `loom-files-${session.id}`,
      taskQueue: access.taskQueue,
      // A session of a Loom before hosts has none: its files are on this machine, as `loom resume` assumes.
      args: [{ ...request, host: storedHostOr(session.host) }],
      staticSummary: `${request.action} · ${escapeMarkdownInline(session.title)}`,
      // Someone waits for the answer (`loom revert`, the web view's undo).
      priority: interactivePriority,
    });
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError)
      throw new FilesRequestError(
        `A revert, unrevert or fork of ${session.id} is under way; try again once it is done.`,
        'busy',
      );
    throw error;
  }
  try {
    return await handle.result();
  } catch (error) {
    const failure = applicationFailure(error);
    if (!failure) throw error;
    throw new FilesRequestError(
      failure.message,
      (failure.details?.[0] as FilesRequestProblem | undefined) ?? 'invalid',
    );
  }
}

export const revertFiles = (
  access: FilesAccess,
  request: Omit<Extract<FilesRequest, { action: 'revert' }>, 'action'>,
) => changeSessionFiles(access, { action: 'revert', ...request }) as Promise<FilesRestored>;

export const unrevertFiles = (
  access: FilesAccess,
  request: Omit<Extract<FilesRequest, { action: 'unrevert' }>, 'action'>,
) => changeSessionFiles(access, { action: 'unrevert', ...request }) as Promise<FilesRestored>;

export const forkWithFiles = (
  access: FilesAccess,
  request: Omit<Extract<FilesRequest, { action: 'fork' }>, 'action'>,
) => changeSessionFiles(access, { action: 'fork', ...request }) as Promise<Fork>;

/**
 * What a session changed, read from its snapshots, which are on the host that holds its files:
 * read here when that is this machine (or the session names no host).
 */
export async function readSessionDiff(
  store: SessionStore,
  dataDir: string,
  hostId: string,
  sessionId: string,
  selection: DiffSelection = {},
): Promise<FileDiff[]> {
  const session = await store.getSession(sessionId);
  if (!session) throw new FilesRequestError(`Unknown session "${sessionId}". \`loom ls\` lists sessions.`, 'unknown');
  if (session.host && session.host !== hostId)
    throw new FilesRequestError(
      `Session ${sessionId}'s files and snapshots are on host ${session.host}: run \`loom diff\` there.`,
    );
  return sessionDiff(store, dataDir, session, selection);
}

/** The failure a files workflow's activity reported, in its own words. */
function applicationFailure(error: unknown): ApplicationFailure | undefined {
  let cause: unknown = error instanceof WorkflowFailedError ? error.cause : undefined;
  while (cause && !(cause instanceof ApplicationFailure)) cause = (cause as { cause?: unknown }).cause;
  return cause as ApplicationFailure | undefined;
}
