import type { BatchRecord, BatchTaskOutcome } from '../batch/batch.js';
import type { Message } from './message.js';
import type { Part } from './part.js';
import type { PermissionRequestRecord } from '../rules/permission-request.js';
import type { Session } from './session.js';

/** One row of the store's change feed (without its revision): what bus events are made of. */
export type FeedRow =
  | { kind: 'session'; session: Session }
  | { kind: 'message'; message: Message }
  | { kind: 'part'; part: Part }
  /** A part deleted (a retried model call starts its answer again). */
  | { kind: 'part-removed'; partID: string; messageID: string; sessionID: string }
  /** A message deleted with its parts (`removeMessages`). */
  | { kind: 'message-removed'; messageID: string; sessionID: string }
  /** A session deleted with everything of it (`removeSession`): the last state it had. */
  | { kind: 'session-removed'; session: Session }
  | { kind: 'permission'; request: PermissionRequestRecord }
  | { kind: 'batch'; batch: BatchRecord };

/** How many of a batch's tasks are in each status. */
export type BatchCounts = Record<BatchTaskOutcome['status'], number>;

/**
 * An event of the bus, in OpenCode's shape `{ type, properties }`: what `loom serve`'s
 * `GET /event` streams and what plugins' `event` hook receives. These are the events that come
 * from stored rows; the server adds its own (`server.*`, `session.status`).
 */
export type BusEvent =
  | { type: 'session.updated'; properties: { info: Session } }
  | { type: 'message.updated'; properties: { info: Message } }
  | { type: 'message.part.updated'; properties: { part: Part; delta?: string } }
  | { type: 'message.part.removed'; properties: { sessionID: string; messageID: string; partID: string } }
  | { type: 'message.removed'; properties: { sessionID: string; messageID: string } }
  | { type: 'session.deleted'; properties: { sessionID: string; info: Session } }
  | { type: 'permission.asked'; properties: { request: PermissionRequestRecord } }
  | { type: 'permission.replied'; properties: { request: PermissionRequestRecord } }
  | { type: 'batch.updated'; properties: { batch: BatchRecord; counts: BatchCounts } };

/**
 * The event of one feed row. A batch's event carries its tasks' counts, which the caller reads
 * from the store (`counts`); without them every count is 0.
 */
export function busEventOf(row: FeedRow, counts?: BatchCounts): BusEvent {
  switch (row.kind) {
    case 'session':
      return { type: 'session.updated', properties: { info: row.session } };
    case 'message':
      return { type: 'message.updated', properties: { info: row.message } };
    case 'part':
      return { type: 'message.part.updated', properties: { part: row.part } };
    case 'part-removed':
      return {
        type: 'message.part.removed',
        properties: { sessionID: row.sessionID, messageID: row.messageID, partID: row.partID },
      };
    case 'message-removed':
      return { type: 'message.removed', properties: { sessionID: row.sessionID, messageID: row.messageID } };
    case 'session-removed':
      return { type: 'session.deleted', properties: { sessionID: row.session.id, info: row.session } };
    case 'permission':
      return {
        type: row.request.status === 'pending' ? 'permission.asked' : 'permission.replied',
        properties: { request: row.request },
      };
    case 'batch':
      return { type: 'batch.updated', properties: { batch: row.batch, counts: counts ?? NO_COUNTS } };
  }
}

const NO_COUNTS: BatchCounts = { pending: 0, running: 0, completed: 0, failed: 0, cancelled: 0 };
