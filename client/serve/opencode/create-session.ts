import type { Context } from 'hono';
import { checkProviderHere, chooseModel, SERVER_NAMES_MODEL } from '../../services/model-choice.js';
import { createEmptySession } from '../../services/new-session.js';
import { chooseAgent, loadPersonProject } from '../../services/project-agents.js';
import type { Session } from '../../../core/records/session.js';
import type { ServeDeps } from '../deps.js';
import { HttpError } from '../errors.js';

/** The project folder an OpenCode client names: `?directory=`, or its `x-opencode-directory` header (URI-encoded). */
export function requestedDirectory(c: Context): string | undefined {
  const header = c.req.header('x-opencode-directory');
  return c.req.query('directory') || (header ? decodeURIComponent(header) : undefined);
}

export const parentRefused = (parentId: string) =>
  new HttpError(
    400,
    `parentID "${parentId}": Loom starts subagent sessions itself, from an agent's task call; create a root session (no parentID) and prompt it.`,
  );

/**
 * OpenCode's `session.create`: an idle session with no run, whose agent and model are chosen as a
 * start's are (the config's, unless the body names them), so a missing model is said now, not at
 * the first prompt. Budgets and time limits go with a prompt.
 */
export async function createSession(
  deps: ServeDeps,
  directory: string,
  body: { agent?: string; model?: string; title?: string; timeout?: number; maxTokens?: number; maxCost?: number },
): Promise<Session> {
  const extra = (['timeout', 'maxTokens', 'maxCost'] as const).filter((key) => body[key] !== undefined);
  if (extra.length > 0)
    throw new HttpError(
      400,
      `${extra.join(', ')} ${extra.length > 1 ? 'go' : 'goes'} with a prompt: send "prompt" too, or send ${extra.length > 1 ? 'them' : 'it'} with the first prompt.`,
    );
  const project = await loadPersonProject(deps.store, directory, deps.env, deps.dataDir);
  const agent = chooseAgent(body.agent, project);
  const model = chooseModel(body.model, agent, project, deps.env, SERVER_NAMES_MODEL);
  checkProviderHere(model, project.config, deps.env);
  return createEmptySession(deps.store, { agent, model, directory, host: deps.hostId, title: body.title });
}
