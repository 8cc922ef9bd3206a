import { describe, expect, it } from 'vitest';
import type { ServerEvent } from '../../client/serve/events/event-types.js';
import { TurnEnds } from '../../client/serve/events/turn-ends.js';
import { servedMessage } from '../../client/serve/opencode/shapes.js';
import type { AssistantMessage } from '../../core/records/message.js';
import { textPart, userMessage } from '../../testkit/store/store-records.js';

const status = (sessionID: string, detail: 'idle' | 'failed' | 'cancelled' | 'busy'): ServerEvent =>
  detail === 'busy'
    ? { type: 'session.status', properties: { sessionID, status: { type: 'busy', detail } } }
    : { type: 'session.status', properties: { sessionID, status: { type: 'idle', detail } } };

const answer = (error?: AssistantMessage['error']): ServerEvent => {
  const info: AssistantMessage = {
    id: 'msg_2',
    sessionID: 'ses_a',
    role: 'assistant',
    parentID: 'msg_1',
    agent: 'build',
    model: 'openai/gpt-4o',
    step: 1,
    time: { created: 2 },
    tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
    cost: 0,
    ...(error ? { error } : {}),
  };
  return { type: 'message.updated', properties: { sessionID: 'ses_a', info: servedMessage(info) } };
};

/** The events `TurnEnds` adds after each of `events`, by type. */
function added(events: ServerEvent[]): string[] {
  const turns = new TurnEnds();
  return events.flatMap((event) => turns.after(event)).map((event) => event.type);
}

describe("the turn ends of loom serve's event stream", () => {
  it('says session.idle once a session seen busy is idle again, and only once', () => {
    expect(added([status('ses_a', 'busy'), status('ses_a', 'idle'), status('ses_a', 'idle')])).toEqual([
      'session.idle',
    ]);
  });

  it('says it for a turn whose busy status the stream never showed, from the messages it wrote', () => {
    const prompt: ServerEvent = {
      type: 'message.updated',
      properties: { sessionID: 'ses_a', info: servedMessage(userMessage('msg_1')) },
    };
    const part: ServerEvent = { type: 'message.part.updated', properties: { part: textPart('prt_1', 'msg_2', 'Hi') } };
    expect(added([prompt, part, status('ses_a', 'idle')])).toEqual(['session.idle']);
  });

  it('says nothing for an idle session that did nothing (a session just created, a revert)', () => {
    expect(added([status('ses_a', 'idle')])).toEqual([]);
  });

  it("sends the failing message's error as session.error, in OpenCode's shape, before session.idle", () => {
    const turns = new TurnEnds();
    turns.after(answer({ name: 'ModelAuthError', message: 'The key was refused' }));
    const after = turns.after(status('ses_a', 'failed'));
    expect(after).toEqual([
      {
        type: 'session.error',
        properties: {
          sessionID: 'ses_a',
          error: { name: 'ModelAuthError', message: 'The key was refused', data: { message: 'The key was refused' } },
        },
      },
      { type: 'session.idle', properties: { sessionID: 'ses_a' } },
    ]);
  });

  it('calls a cancelled turn MessageAbortedError even when no message said so', () => {
    const turns = new TurnEnds();
    turns.after(status('ses_a', 'busy'));
    expect(turns.after(status('ses_a', 'cancelled'))[0]).toMatchObject({
      type: 'session.error',
      properties: { error: { name: 'MessageAbortedError', data: { message: 'The run was cancelled' } } },
    });
  });
});
