import { ApplicationFailure } from '@temporalio/common';
import type { ActivityDeps } from '../deps.js';
import { heartbeating } from '../process/heartbeating.js';
import { forkSession, type Fork } from './fork.js';
import { FilesRequestError } from './request-error.js';
import type { CutPoint } from './session-patches.js';
import { revertSession, unrevertSession, type FilesRestored } from './session-revert.js';

/** What a person asked of a session's files, run on the host that holds them. */
export type FilesRequest =
  | { action: 'revert'; sessionId: string; to?: CutPoint; force?: boolean }
  | { action: 'unrevert'; sessionId: string; force?: boolean }
  | { action: 'fork'; sessionId: string; messageId?: string; dir?: string };

export type FilesOutcome = FilesRestored | Fork;

/**
 * Does a revert, unrevert or fork on this machine: what the files activity runs, and what the CLI
 * runs itself when no worker would (a request that cannot be done throws a `FilesRequestError`).
 */
export async function changeFilesHere(
  { store, dataDir }: Pick<ActivityDeps, 'store' | 'dataDir'>,
  request: FilesRequest,
): Promise<FilesOutcome> {
  if (request.action === 'revert') return revertSession(store, dataDir, request);
  if (request.action === 'unrevert') return unrevertSession(store, dataDir, request);
  return forkSession(store, dataDir, request);
}

/** Revert, unrevert and fork as activities: a request that cannot be done as asked fails at once, with its reason. */
export function createFilesActivities(deps: Pick<ActivityDeps, 'store' | 'dataDir'>) {
  return {
    changeSessionFiles: (request: FilesRequest) => heartbeating(() => change(request)),
  };

  async function change(request: FilesRequest): Promise<FilesOutcome> {
    try {
      return await changeFilesHere(deps, request);
    } catch (error) {
      if (error instanceof FilesRequestError)
        throw ApplicationFailure.create({
          type: error.name,
          message: error.message,
          nonRetryable: true,
          details: [error.problem],
        });
      throw error;
    }
  }
}
