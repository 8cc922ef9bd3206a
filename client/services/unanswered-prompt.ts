import type { MessageRecords } from '../../activities/store/messages.js';
import type { PromptRecords } from '../../activities/store/prompts.js';
import type { MessageWithParts } from '../../core/records/message.js';
import type { Session } from '../../core/records/session.js';
import { RUN_TIMED_OUT } from '../../core/runs/run.js';

/** A prompt whose run failed before the model answered it, and the messages that run left. */
export interface UnansweredPrompt {
  text: string;
  /**
   * The prompt's user message and the failed, empty answers after it: the run again replaces them
   * (none when a timed-out run is continued, its work kept).
   */
  messageIds: string[];
}

/**
 * The prompt `loom resume <id>` runs again when given none: the last user message of a session
 * whose last run failed before its model said anything (a model that was never reached, say,
 * "fix it, then resume the session"). Undefined when the session has nothing of the kind.
 */
export async function unansweredPrompt(
  store: MessageRecords & PromptRecords,
  session: Session,
): Promise<UnansweredPrompt | undefined> {
  if (session.status !== 'failed') return undefined;
  const messages = await store.messages(session.id);
  const last = messages.findLastIndex((message) => message.info.role === 'user');
  if (last < 0) return undefined;
  const after = messages.slice(last + 1);
  if (after.some(answered)) return undefined;
  const { info, parts } = messages[last];
  const stored = info.role === 'user' && info.promptID ? await store.getPrompt(info.promptID) : undefined;
  const text =
    stored?.text ??
    parts
      .map((part) => (part.type === 'text' && !part.synthetic ? part.text : ''))
      .join('\n')
      .trim();
  if (!text) return undefined;
  return { text, messageIds: [info.id, ...after.map((message) => message.info.id)] };
}

/** What `loom resume <id>` sends, given no prompt, to a session whose last run ran out of time. */
export const CONTINUE_TIMED_OUT =
  'Your last run timed out before it finished; its work so far is kept. Continue where you left off.';

/**
 * Whether the session's last run ran out of time (`--timeout`, an agent's or a batch task's
 * limit): its last message is the answer that recorded `RunTimedOut`.
 */
export async function endedTimedOut(store: MessageRecords, session: Session): Promise<boolean> {
  if (session.status !== 'failed') return false;
  const last = (await store.messages(session.id)).at(-1)?.info;
  return last?.role === 'assistant' && last.error?.name === RUN_TIMED_OUT;
}

/** Whether an answer holds anything the model said or did. */
function answered(message: MessageWithParts): boolean {
  if (message.info.role !== 'assistant') return true;
  return message.parts.some(
    (part) => (part.type === 'text' && part.text.trim() !== '') || part.type === 'tool' || part.type === 'reasoning',
  );
}
