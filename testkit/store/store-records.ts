// Records the store's tests build: a session, its messages and parts, a batch, a permission request.
import type { BatchRecord } from '../../core/batch/batch.js';
import type { Message } from '../../core/records/message.js';
import type { Part, TextPart } from '../../core/records/part.js';
import type { PermissionRequestRecord } from '../../core/rules/permission-request.js';
import type { Session } from '../../core/records/session.js';

export function session(id: string, updated: number, parentID?: string): Session {
  return {
    id,
    parentID,
    title: `Session ${id}`,
    agent: 'build',
    model: 'openai/gpt-4o',
    directory: '/project',
    status: 'idle',
    time: { created: updated, updated },
  };
}

export function userMessage(id: string, sessionID = 'ses_a'): Message {
  return { id, sessionID, role: 'user', agent: 'build', model: 'openai/gpt-4o', time: { created: 1 } };
}

export function textPart(id: string, messageID: string, text: string, sessionID = 'ses_a'): TextPart {
  return { id, sessionID, messageID, type: 'text', text };
}

export const textsOf = (parts: Part[]) => parts.map((part) => (part.type === 'text' ? part.text : part.type));

export function batch(id: string, created: number): BatchRecord {
  return {
    id,
    source: 'tasks.jsonl',
    sourceBytes: 10,
    total: 3,
    directory: '/project',
    agent: 'general',
    concurrency: 2,
    retries: 1,
    status: 'running',
    time: { created, updated: created },
  };
}

export function request(
  id: string,
  status: PermissionRequestRecord['status'],
  rootID = 'ses_root',
): PermissionRequestRecord {
  return {
    id,
    sessionID: 'ses_a',
    rootID,
    messageID: 'msg_1',
    partID: 'prt_1',
    callID: 'call_1',
    tool: 'bash',
    agent: 'build',
    permission: 'bash',
    patterns: ['npm publish'],
    always: ['npm *'],
    title: 'bash · npm publish',
    status,
    time: { created: 1 },
  };
}
