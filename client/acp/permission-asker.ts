import type { Client } from '@temporalio/client';
import { methods, type AgentContext, type PermissionOption } from '@agentclientprotocol/sdk';
import type { PartRecords } from '../../activities/store/parts.js';
import type { PermissionRecords } from '../../activities/store/permissions.js';
import type { SessionRecords } from '../../activities/store/sessions.js';
import type { PermissionReplyKind, PermissionRequestRecord } from '../../core/rules/permission-request.js';
import { errorMessage } from '../../core/text/error-message.js';
import { replyToRequest } from '../services/permissions.js';
import { answerHint, describeRequest } from '../render/permission-request.js';
import { toolKind } from './tool-calls.js';

/** Loom's three answers, as ACP's option kinds. */
export const PERMISSION_OPTIONS: PermissionOption[] = [
  { optionId: 'once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'always', name: 'Allow always', kind: 'allow_always' },
  { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
];

/**
 * Brings the permission requests of a session tree to the editor (`session/request_permission`)
 * and sends its answers to the run that asked, as `loom approve` does. Each request is asked once
 * per connection, whichever turn or load found it; one answered elsewhere meanwhile is let be.
 */
export class PermissionAsker {
  private readonly asked = new Set<string>();

  constructor(
    private readonly client: () => Promise<Client>,
    private readonly store: PermissionRecords & SessionRecords & PartRecords,
    private readonly editor: () => AgentContext,
    /** Whether the editor has gone: a request then waits for `loom approve`, and says so. */
    private readonly gone: () => boolean,
    private readonly report: (line: string) => void,
  ) {}

  /** Asks, under the editor's session `acpSessionId`, every pending request of the tree rooted at `rootId`. */
  async check(acpSessionId: string, rootId: string): Promise<void> {
    for (const request of await this.store.permissionRequests({ status: 'pending', rootID: rootId })) {
      if (this.asked.has(request.id)) continue;
      this.asked.add(request.id);
      void this.ask(acpSessionId, request);
    }
  }

  private async ask(acpSessionId: string, request: PermissionRequestRecord): Promise<void> {
    if (this.gone()) return this.report(`\n${describeRequest(request)}\n  ${answerHint(request)}`);
    try {
      const { outcome } = await this.editor().request(methods.client.session.requestPermission, {
        sessionId: acpSessionId,
        toolCall: {
          ...(await this.visibleCall(acpSessionId, request)),
          kind: toolKind(request.tool),
          status: 'pending',
          rawInput: { permission: request.permission, patterns: request.patterns, always: request.always },
        },
        options: PERMISSION_OPTIONS,
      });
      // The editor withdrew the question (its prompt was cancelled): the run decides, or someone else answers.
      if (outcome.outcome === 'cancelled') return;
      const reply = outcome.optionId as PermissionReplyKind;
      if (!PERMISSION_OPTIONS.some((option) => option.optionId === reply)) {
        this.report(`loom acp: the editor answered permission request ${request.id} with "${reply}", not an option`);
        this.asked.delete(request.id);
        return;
      }
      await replyToRequest(await this.client(), this.store, { requestId: request.id, reply });
    } catch (error) {
      if (this.gone()) return this.report(`\n${describeRequest(request)}\n  ${answerHint(request)}`);
      // Answered elsewhere (`loom approve`, the web view), or the run ended: nothing to send.
      this.report(`loom acp: permission request ${request.id}: ${errorMessage(error)}`);
    }
  }

  /**
   * The call the editor knows the request by: its own, or for a subagent's request the task call
   * in the editor's session that the subagent runs under, named with the subagent's agent.
   */
  private async visibleCall(
    acpSessionId: string,
    request: PermissionRequestRecord,
  ): Promise<{ toolCallId: string; title: string }> {
    const own = { toolCallId: request.callID, title: request.title };
    let session = await this.store.getSession(request.sessionID);
    while (session?.parentID && session.parentID !== acpSessionId)
      session = await this.store.getSession(session.parentID);
    if (session?.parentID !== acpSessionId || !session.parentPartID) return own;
    const taskPart = await this.store.getPart(session.parentPartID);
    if (taskPart?.type !== 'tool') return own;
    return { toolCallId: taskPart.callID, title: `${request.agent} subagent: ${request.title}` };
  }
}
