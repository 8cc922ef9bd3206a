import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { ClientContext } from '../context.js';
import type { TemporalAccess } from '../temporal/connect.js';
import type { PermissionAsker } from './permission-asker.js';
import type { Turns } from './turns.js';

/** What the ACP handlers work with: the CLI's context and this connection's editor. */
export interface AcpDeps {
  context: ClientContext;
  /** Temporal, with a worker in this process unless one already polls (started on first need, once). */
  ready(): Promise<TemporalAccess>;
  /** Sends a `session/update` to the editor; nothing once it has gone. */
  send(sessionId: string, update: SessionUpdate): Promise<void>;
  asker: PermissionAsker;
  turns: Turns;
}
