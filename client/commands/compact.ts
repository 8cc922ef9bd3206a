import { InputError } from '../input-error.js';
import type { ClientContext } from '../context.js';
import type { ChangeFeed } from '../../activities/store/change-feed.js';
import { addTokens, zeroTokens, type Tokens } from '../../core/records/message.js';
import { checkModelFlag, modelRetryFromEnv } from '../services/model-choice.js';
import { startCompaction } from '../services/compaction.js';
import { watchRun } from '../follow/watch-run.js';
import { currentCursor } from '../follow/session-changes.js';
import { printOutcome } from './outcome.js';

/** `loom compact <sessionId>`: summarises an idle session; from then on its model sees the summary. */
export async function compactCommand(
  context: ClientContext,
  sessionId: string,
  options: { model?: string; json?: boolean },
): Promise<number> {
  const session = await context.store.getSession(sessionId);
  if (!session) throw new InputError(`Unknown session "${sessionId}". \`loom ls\` lists sessions.`);
  const cursor = await currentCursor(context.store, sessionId);
  const { client } = await context.temporal();
  await context.ensureWorker();
  const handle = await startCompaction(client, session, {
    taskQueue: context.settings.taskQueue,
    hostId: context.hostId,
    model: checkModelFlag(options.model),
    modelRetry: modelRetryFromEnv(context.env),
  });
  const outcome = await watchRun(context, handle, sessionId, cursor, { quiet: Boolean(options.json) });
  return printOutcome(
    context,
    { ...outcome, tokens: await summaryTokens(context.store, sessionId, cursor) },
    Boolean(options.json),
  );
}

/**
 * The tokens of the run's summary message. The run's own count leaves them out (they are the
 * compaction's, not a step's), so they are read from the messages it wrote.
 */
async function summaryTokens(store: ChangeFeed, sessionId: string, cursor: number): Promise<Tokens> {
  const { messages } = await store.changes(sessionId, cursor);
  return messages.reduce(
    (sum, message) => (message.role === 'assistant' ? addTokens(sum, message.tokens) : sum),
    zeroTokens(),
  );
}
