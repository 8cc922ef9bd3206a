import type { SetSessionModeRequest, SetSessionModeResponse } from '@agentclientprotocol/sdk';
import { loadPersonProject } from '../services/project-agents.js';
import type { AcpDeps } from './deps.js';
import { unknownSession } from './errors.js';
import { checkMode } from './modes.js';

/**
 * `session/set_mode`: the agent of the session's next prompts, kept in its row (a prompt goes to
 * the session's agent), so another `loom acp`, `loom resume` or the web view continue with it.
 */
export async function setMode(deps: AcpDeps, params: SetSessionModeRequest): Promise<SetSessionModeResponse> {
  const { store, env, settings } = deps.context;
  const session = await store.getSession(params.sessionId);
  if (!session) throw unknownSession(params.sessionId);
  const project = await loadPersonProject(store, session.directory, env, settings.dataDir);
  const agent = checkMode(project, params.modeId, session.id);
  // Read again just before writing: a run may have written the row since.
  const current = (await store.getSession(session.id)) ?? session;
  await store.saveSession({ ...current, agent, time: { ...current.time, updated: Date.now() } });
  await deps.send(session.id, { sessionUpdate: 'current_mode_update', currentModeId: agent });
  return {};
}
