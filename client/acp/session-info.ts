import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { SessionStore } from '../../activities/store/store.js';
import { modelInfo } from '../../core/models/model-info.js';
import { loadPersonProject } from '../services/project-agents.js';
import type { ClientContext } from '../context.js';

/**
 * What an editor shows of a session beside its transcript: its title (a session's first run
 * names it) as `session_info_update`, and as `usage_update` how much of its model's window the
 * last step filled and what the session and its subagents have cost. Sent after a load and after
 * each turn; a model whose window Loom does not know gets no usage.
 */
export async function sessionInfoUpdates(context: ClientContext, sessionId: string): Promise<SessionUpdate[]> {
  const { store } = context;
  const session = await store.getSession(sessionId);
  if (!session) return [];
  const updates: SessionUpdate[] = [
    {
      sessionUpdate: 'session_info_update',
      title: session.title,
      updatedAt: new Date(session.time.updated).toISOString(),
    },
  ];
  const usage = await usageUpdate(
    store,
    sessionId,
    async () =>
      (await loadPersonProject(context.store, session.directory, context.env, context.settings.dataDir)).config,
  );
  if (usage) updates.push(usage);
  return updates;
}

async function usageUpdate(
  store: SessionStore,
  sessionId: string,
  config: () => Promise<Parameters<typeof modelInfo>[0]>,
): Promise<SessionUpdate | undefined> {
  const last = await store.lastFinishedStep(sessionId);
  if (!last) return undefined;
  const size = modelInfo(await config(), last.model).limit?.context;
  if (!size) return undefined;
  const { tokens } = last;
  const { cost } = await store.subtreeUsage(sessionId);
  return {
    sessionUpdate: 'usage_update',
    used: tokens.input + tokens.output + tokens.cache.read + tokens.cache.write,
    size,
    ...(cost > 0 ? { cost: { amount: cost, currency: 'USD' } } : {}),
  };
}
