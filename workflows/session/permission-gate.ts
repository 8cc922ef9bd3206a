import { condition } from '@temporalio/workflow';
import { grantWords, writablePaths } from '../../core/rules/folder-grant.js';
import { derivedId } from '../../core/records/ids.js';
import {
  REJECTED_MESSAGE,
  alwaysRules,
  correctedMessage,
  decide,
  deniedMessage,
  type PermissionRequest,
} from '../../core/rules/permission.js';
import type { PermissionReply, PermissionRequestRecord } from '../../core/rules/permission-request.js';
import type { PluginVerdict } from '../../activities/permissions/permission-activities.js';
import type { RunConfig } from '../../core/runs/run.js';
import type { ToolCall } from '../../core/tool-call/check.js';
import { callStore, labelledCallStore } from '../activity-policies.js';
import { previewLine } from '../../core/records/prompt.js';
import type { WaitingBoard } from './waiting.js';

/** Whether a tool call may run, and if not, what the model is told and whether the turn stops. */
export type Authorization =
  | {
      allowed: true;
      externalAllowed: boolean;
      /** What the allowed `external_directory` requests open for writing in a bash call's sandbox. */
      writable: string[];
      localNetworkAllowed?: boolean;
    }
  | { allowed: false; error: string; stopTurn: boolean };

export interface CallDescription {
  call: Pick<ToolCall, 'partId' | 'callId' | 'tool'>;
  messageId: string;
  /** `bash · npm test`: what a person approving sees. */
  title: string;
}

/**
 * Decides tool calls against the agent's rules, the session's and the "always" approvals, and
 * waits durably for a person when a rule says `ask`. Replies arrive through the
 * `permissionReply` update; the gate's state is a plain object the workflow owns.
 */
export class PermissionGate {
  /** Requests waiting for a reply, by id. */
  readonly pending = new Map<string, { record: PermissionRequestRecord; request: PermissionRequest }>();
  private readonly replies = new Map<string, PermissionReply>();
  /** How many requests each call has made (a call may need several permissions). */
  private readonly asked = new Map<string, number>();

  constructor(
    private readonly config: RunConfig,
    private readonly session: { id: string; agent: string },
    /** Where the run keeps what waits in its subtree: it marks the run, and tells its ancestors. */
    private readonly board: WaitingBoard,
  ) {}

  /** The update's validator: only a waiting request may be answered, and only once. */
  validateReply(reply: PermissionReply): void {
    if (!this.pending.has(reply.requestId) || this.replies.has(reply.requestId)) {
      throw new Error(
        `No permission request "${reply.requestId}" is waiting in session ${this.session.id} (unknown, or answered already).`,
      );
    }
  }

  /**
   * Takes a reply. `always` also approves the other waiting requests of this session that the
   * approvals now cover; a plain `reject` rejects them all, as the turn is over.
   */
  receiveReply(reply: PermissionReply): { requestId: string; status: 'approved' | 'rejected' } {
    this.replies.set(reply.requestId, reply);
    const answered = this.pending.get(reply.requestId)!;
    if (reply.reply === 'always') {
      this.config.approved = [...this.config.approved, ...alwaysRules(answered.request)];
      for (const [id, other] of this.pending) {
        if (!this.replies.has(id) && decide(other.request, this.config.approved).action === 'allow') {
          this.replies.set(id, { requestId: id, reply: 'always' });
        }
      }
    }
    if (reply.reply === 'reject' && !reply.message) {
      for (const id of this.pending.keys())
        if (!this.replies.has(id)) this.replies.set(id, { requestId: id, reply: 'reject' });
    }
    return { requestId: reply.requestId, status: reply.reply === 'reject' ? 'rejected' : 'approved' };
  }

  /** Checks every permission a call needs, in order, asking a person where the rules say so. */
  async authorize(requests: PermissionRequest[], call: CallDescription): Promise<Authorization> {
    let externalAllowed = false;
    const writable = new Set<string>();
    let localNetworkAllowed = false;
    for (const request of requests) {
      const rulesets =
        request.permission === 'doom_loop'
          ? [this.config.agent.permission, this.config.approved]
          : [this.config.agent.permission, this.config.sessionRules, this.config.approved];
      let verdict = decide(request, ...rulesets);
      if (verdict.action === 'deny') return { allowed: false, error: deniedMessage(verdict.rules), stopTurn: false };
      if (verdict.action === 'ask') {
        // Another run of this session tree may have approved it "always" meanwhile.
        this.config.approved = await callStore.loadApprovedRules(this.config.rootId);
        verdict = decide(request, ...rulesets.slice(0, -1), this.config.approved);
      }
      if (verdict.action === 'ask') {
        const reply = await this.ask(request, call);
        if (reply.deniedBy)
          return { allowed: false, error: pluginDeniedMessage(reply.deniedBy, request), stopTurn: false };
        if (reply.reply === 'reject') {
          return reply.message
            ? { allowed: false, error: correctedMessage(reply.message), stopTurn: false }
            : { allowed: false, error: REJECTED_MESSAGE, stopTurn: true };
        }
      }
      if (request.permission === 'external_directory') externalAllowed = true;
      for (const path of writablePaths(request)) writable.add(path);
      if (request.permission === 'webfetch' && request.explicit) localNetworkAllowed = true;
    }
    return {
      allowed: true,
      externalAllowed,
      writable: [...writable],
      ...(localNetworkAllowed ? { localNetworkAllowed } : {}),
    };
  }

  private async ask(
    request: PermissionRequest,
    call: CallDescription,
  ): Promise<PermissionReply & { deniedBy?: string }> {
    // Derived from the call, not drawn at random: calls ask concurrently, and replay must give
    // each request the same id whatever order their awaits resolve in.
    const id = derivedId('per', call.call.partId, this.asked.get(call.call.partId) ?? 0);
    this.asked.set(call.call.partId, (this.asked.get(call.call.partId) ?? 0) + 1);
    const record: PermissionRequestRecord = {
      id,
      sessionID: this.session.id,
      rootID: this.config.rootId,
      messageID: call.messageId,
      partID: call.call.partId,
      callID: call.call.callId,
      tool: call.call.tool,
      agent: this.session.agent,
      permission: request.permission,
      patterns: request.patterns,
      always: request.always,
      title: call.title,
      ...(request.reason ? { reason: request.reason } : {}),
      ...(request.diff ? { diff: request.diff } : {}),
      ...(request.permission === 'external_directory' ? { grants: grantWords(request, call.call.tool) } : {}),
      status: 'pending',
      time: { created: Date.now() },
    };
    this.pending.set(id, { record, request });
    // Marked waiting before the request is stored: whoever finds it can see the run waits.
    this.showWaiting();
    // The project's `permission.ask` plugins may answer instead of a person; the activity then
    // stored the request as answered, and the wait and the second store write are left out.
    const plugins: PluginVerdict | undefined = await labelledCallStore(
      `⏸ asks approval: ${previewLine(call.title)} (${id}): loom approve ${id}`,
    ).savePermissionRequest(record, { askPlugins: true });
    if (plugins) {
      this.pending.delete(id);
      this.showWaiting();
      return plugins.status === 'allow'
        ? { requestId: id, reply: 'once' }
        : { requestId: id, reply: 'reject', deniedBy: plugins.plugin };
    }
    const timeout = this.config.permissionTimeoutMs;
    const replied = () => this.replies.has(id);
    const answered = timeout ? await condition(replied, timeout) : (await condition(replied), true);
    this.pending.delete(id);
    this.showWaiting();
    if (!answered) {
      await callStore.savePermissionRequest({
        ...record,
        status: 'expired',
        time: { ...record.time, replied: Date.now() },
      });
      const seconds = Math.round((this.config.permissionTimeoutMs ?? 0) / 1000);
      return {
        requestId: id,
        reply: 'reject',
        message: `Nobody answered the permission request within ${seconds} s; do not retry this call without asking the user.`,
      };
    }
    const reply = this.replies.get(id)!;
    if (reply.reply === 'always')
      await callStore.approveAlways({ rootId: this.config.rootId, rules: alwaysRules(request) });
    await labelledCallStore(
      `${reply.reply === 'reject' ? 'rejected' : 'approved'}: ${previewLine(call.title)} (${id})`,
    ).savePermissionRequest({
      ...record,
      status: reply.reply === 'reject' ? 'rejected' : 'approved',
      reply: { reply: reply.reply, message: reply.message },
      time: { ...record.time, replied: Date.now() },
    });
    return reply;
  }

  /** Marks the run (and its ancestors) as waiting for a person in the Temporal UI (and its visibility search). */
  private showWaiting(): void {
    this.board.setOwn(
      [...this.pending.values()].map(({ record }) => ({
        id: record.id,
        sessionId: record.sessionID,
        title: record.title,
        tool: record.tool,
        agent: record.agent,
      })),
    );
  }
}

/** What the model is told when a plugin's `permission.ask` hook denies a call (as for a rule's deny). */
function pluginDeniedMessage(plugin: string, request: PermissionRequest): string {
  return `The plugin ${plugin} denied permission to use this specific tool call (${request.permission}: ${request.patterns.join(', ')}).`;
}
