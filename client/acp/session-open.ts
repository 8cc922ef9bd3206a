import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  RequestError,
  type LoadSessionRequest,
  type LoadSessionResponse,
  type NewSessionRequest,
  type NewSessionResponse,
} from '@agentclientprotocol/sdk';
import type { Session } from '../../core/records/session.js';
import { currentCursor } from '../follow/session-changes.js';
import { checkProviderHere, chooseModel, reportMissingKey } from '../services/model-choice.js';
import { createEmptySession } from '../services/new-session.js';
import { loadPersonProject, type ProjectAgents } from '../services/project-agents.js';
import { rootOf } from '../services/sessions.js';
import type { AcpDeps } from './deps.js';
import { unknownSession } from './errors.js';
import { availableCommands, sessionModes } from './modes.js';
import { sessionInfoUpdates } from './session-info.js';
import { SessionUpdates } from './session-updates.js';
import { followTurn } from './turn-follower.js';

/** `session/new`: an empty Loom session in the project at `cwd`, with the project's default agent and model. */
export async function newSession(deps: AcpDeps, params: NewSessionRequest): Promise<NewSessionResponse> {
  const { context } = deps;
  const directory = checkedDirectory(params.cwd);
  const project = await loadPersonProject(context.store, directory, context.env, context.settings.dataDir);
  const agent = project.defaultAgent;
  const model = chooseModel(undefined, agent, project, context.env);
  const missingKey = checkProviderHere(model, project.config, context.env);
  ignoredMcpServers(deps, params.mcpServers.length);
  await deps.ready();
  reportMissingKey(context, missingKey);
  const session = await createEmptySession(context.store, { agent, model, directory, host: context.hostId });
  announceCommands(deps, session.id, project);
  return { sessionId: session.id, modes: sessionModes(project, agent) };
}

/**
 * `session/load`: any session, root or subagent, its conversation replayed as updates. A session
 * whose run is still going (started by an editor that has gone, say) goes on being streamed,
 * with its permission requests, after the answer, until that run ends.
 */
export async function loadSession(deps: AcpDeps, params: LoadSessionRequest): Promise<LoadSessionResponse> {
  const { context } = deps;
  const session = await context.store.getSession(params.sessionId);
  if (!session) throw unknownSession(params.sessionId);
  if (params.cwd !== session.directory)
    context.report(`loom acp: session ${session.id} works in ${session.directory}, not ${params.cwd}; it stays there`);
  ignoredMcpServers(deps, params.mcpServers.length);
  const project = await loadPersonProject(context.store, session.directory, context.env, context.settings.dataDir);
  const access = await deps.ready();
  const updates = new SessionUpdates(session.directory, { users: true });
  const cursor = await currentCursor(context.store, session.id);
  const messages = await context.store.messages(session.id);
  const replay = updates.next(
    messages.map((message) => message.info),
    messages.flatMap((message) => message.parts),
  );
  for (const update of [...replay, ...(await sessionInfoUpdates(context, session.id))])
    await deps.send(session.id, update);
  const runId = await openRun(access.client, session.id);
  if (runId) void followLoaded(deps, session, runId, cursor, updates);
  announceCommands(deps, session.id, project);
  const modes = sessionModes(project, session.agent);
  return modes.availableModes.some((mode) => mode.id === session.agent) ? { modes } : {};
}

async function followLoaded(
  deps: AcpDeps,
  session: Session,
  runId: string,
  cursor: number,
  updates: SessionUpdates,
): Promise<void> {
  const state = deps.turns.begin(session.id);
  const turn = {
    acpSessionId: session.id,
    sessionId: session.id,
    rootId: await rootOf(deps.context.store, session),
    runId,
    directory: session.directory,
    cursor,
    users: true,
    updates,
    cancelled: () => state.cancelled,
  };
  await deps.turns
    .track(
      session.id,
      followTurn(deps.context, turn, (update) => deps.send(session.id, update), deps.asker),
    )
    .catch((error: Error) => deps.context.report(`loom acp: ${error.message}`));
}

/** The run of a session still going, if any. */
async function openRun(client: Client, sessionId: string): Promise<string | undefined> {
  try {
    const description = await client.workflow.getHandle(sessionId).describe();
    return description.status.name === 'RUNNING' ? description.runId : undefined;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

/** The editor's `cwd`, which must be an absolute path to a folder. */
function checkedDirectory(cwd: string): string {
  if (!isAbsolute(cwd)) throw RequestError.invalidParams({ cwd }, `cwd "${cwd}" is not an absolute path`);
  const info = statSync(cwd, { throwIfNoEntry: false });
  if (!info) throw RequestError.invalidParams({ cwd }, `cwd "${cwd}" does not exist`);
  if (!info.isDirectory()) throw RequestError.invalidParams({ cwd }, `cwd "${cwd}" is not a folder`);
  return cwd;
}

function ignoredMcpServers(deps: AcpDeps, count: number): void {
  if (count)
    deps.context.report(
      `loom acp: the editor's ${count} MCP server(s) are not used; Loom runs the project's own (its "mcp" config), which a worker anywhere can start`,
    );
}

/** The project's slash commands, once the editor knows the session (just after the answer). */
function announceCommands(deps: AcpDeps, sessionId: string, project: ProjectAgents): void {
  setTimeout(() => {
    void deps.send(sessionId, {
      sessionUpdate: 'available_commands_update',
      availableCommands: availableCommands(project),
    });
  }, 0);
}
