import { WorkflowNotFoundError } from '@temporalio/client';
import type { SessionRecords } from '../../activities/store/sessions.js';
import { AgentAttribute, RootSessionAttribute } from '../../core/runs/search-attributes.js';
import type { Session } from '../../core/records/session.js';
import type { TemporalAccess } from '../temporal/connect.js';

/** A session of a tree whose workflow has an open run. */
export interface TreeRun {
  sessionId: string;
  runId: string;
  /** Undefined for a subagent whose run has not opened its session yet. */
  session?: Session;
  /** The agent, from the run's search attributes, for a session not in the store yet. */
  agent?: string;
}

/**
 * The sessions of `rootId`'s tree with an open run, as Temporal says: the store's status is not
 * enough, since a background subagent that has finished (idle in the store) keeps its run open
 * until its parent has taken its report, and the parent's wake-up run is open before the store
 * marks it busy. Sessions come from the store's tree and, where the namespace has Loom's search
 * attributes, from the runs tagged with the root, which holds subagents started a moment ago,
 * before their run has written their session.
 */
export async function runningInTree(
  access: Pick<TemporalAccess, 'client' | 'searchAttributes'>,
  store: SessionRecords,
  rootId: string,
): Promise<TreeRun[]> {
  const sessions = new Map<string, Session | undefined>();
  const agents = new Map<string, string>();
  const root = await store.getSession(rootId);
  if (root) await addTree(store, root, sessions);
  else sessions.set(rootId, undefined);
  if (access.searchAttributes) {
    const query = `${RootSessionAttribute.name} = "${rootId}" AND ExecutionStatus = "Running"`;
    for await (const execution of access.client.workflow.list({ query })) {
      const agent = execution.typedSearchAttributes.get(AgentAttribute);
      if (agent) agents.set(execution.workflowId, agent);
      if (!sessions.has(execution.workflowId))
        sessions.set(execution.workflowId, await store.getSession(execution.workflowId));
    }
  }
  const runs = await Promise.all(
    [...sessions].map(async ([sessionId, session]) => {
      const runId = await openRunOf(access, sessionId);
      const agent = agents.get(sessionId);
      return runId ? [{ sessionId, runId, ...(session ? { session } : {}), ...(agent ? { agent } : {}) }] : [];
    }),
  );
  return runs.flat();
}

async function addTree(store: SessionRecords, session: Session, into: Map<string, Session | undefined>): Promise<void> {
  into.set(session.id, session);
  for (const child of await store.children(session.id)) await addTree(store, child, into);
}

/** The run id of a session's open run, if it has one. */
async function openRunOf(access: Pick<TemporalAccess, 'client'>, sessionId: string): Promise<string | undefined> {
  const latest = await latestRunOf(access, sessionId);
  return latest?.open ? latest.runId : undefined;
}

/** A session's latest run, open or closed, with the first run of its chain (the same across continue-as-new). */
export async function latestRunOf(
  access: Pick<TemporalAccess, 'client'>,
  sessionId: string,
  runId?: string,
): Promise<{ runId: string; chain: string; open: boolean } | undefined> {
  try {
    const { status, runId: latest, raw } = await access.client.workflow.getHandle(sessionId, runId).describe();
    return { runId: latest, chain: raw.workflowExecutionInfo?.firstRunId || latest, open: status.name === 'RUNNING' };
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

/** How a session of the tree is named in what the command says: `background subagent 'explore'`. */
export function runLabel(run: Pick<TreeRun, 'session' | 'agent'>): string {
  const agent = run.session?.agent ?? run.agent;
  if (run.session && !run.session.parentID) return `session '${agent}'`;
  return agent ? `background subagent '${agent}'` : 'background subagent';
}
