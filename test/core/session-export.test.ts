import { describe, expect, it } from 'vitest';
import { isId } from '../../core/records/ids.js';
import { zeroTokens } from '../../core/records/message.js';
import { exportIssues, importedSession, SessionExport } from '../../core/records/session-export.js';

const exported: SessionExport = {
  info: {
    id: 'ses_old',
    parentID: 'ses_parent',
    title: 'Fix the build',
    agent: 'build',
    model: 'openai/gpt-4o',
    directory: '/work/there',
    host: 'far',
    status: 'failed',
    time: { created: 10, updated: 20 },
  },
  messages: [
    {
      info: {
        id: 'msg_u',
        sessionID: 'ses_old',
        role: 'user',
        agent: 'build',
        model: 'm',
        promptID: 'prm_1',
        time: { created: 11 },
      },
      parts: [
        { id: 'prt_u1', sessionID: 'ses_old', messageID: 'msg_u', type: 'text', text: 'fix it' },
        { id: 'prt_u0', sessionID: 'ses_old', messageID: 'msg_u', type: 'text', text: 'please' },
      ],
    },
    {
      info: {
        id: 'msg_a',
        sessionID: 'ses_old',
        role: 'assistant',
        agent: 'build',
        model: 'm',
        parentID: 'msg_u',
        step: 1,
        tokens: zeroTokens(),
        cost: 0,
        time: { created: 12 },
      },
      parts: [{ id: 'prt_a', sessionID: 'ses_old', messageID: 'msg_a', type: 'text', text: 'fixed' }],
    },
  ],
};

describe('an imported session', () => {
  it('takes new ids in the same order, remaps references, and starts idle here', () => {
    const { session, messages } = importedSession(exported, {
      now: 1_000,
      random: Math.random,
      directory: '/work/here',
      host: 'near',
    });
    expect(isId('ses', session.id)).toBe(true);
    expect(session).toEqual({
      id: session.id,
      title: 'Fix the build',
      agent: 'build',
      model: 'openai/gpt-4o',
      directory: '/work/here',
      host: 'near',
      status: 'idle',
      time: { created: 10, updated: 1_000 },
    });
    const [user, assistant] = messages;
    expect(user.info.id < assistant.info.id).toBe(true);
    expect(user.info).not.toHaveProperty('promptID');
    expect(assistant.info).toMatchObject({ sessionID: session.id, parentID: user.info.id });
    expect(user.parts.map((p) => (p.type === 'text' ? p.text : ''))).toEqual(['fix it', 'please']);
    expect(user.parts[0].id < user.parts[1].id).toBe(true);
    for (const { info, parts } of messages)
      for (const part of parts) expect(part).toMatchObject({ sessionID: session.id, messageID: info.id });
  });

  it('names each key at fault in a file that is not an export', () => {
    const result = SessionExport.safeParse({ info: { ...exported.info, title: 3 }, messages: [{ info: {} }] });
    expect(result.success).toBe(false);
    const issues = exportIssues(result.error!);
    expect(issues).toContain('info.title');
    expect(issues).toContain('messages.0.info');
    expect(issues).toContain('messages.0.parts');
  });
});
