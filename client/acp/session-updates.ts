import type { PlanEntry, SessionUpdate } from '@agentclientprotocol/sdk';
import type { Message } from '../../core/records/message.js';
import type { Part, ToolPart } from '../../core/records/part.js';
import type { Todo } from '../../core/records/todo.js';
import { toolCallOf } from './tool-calls.js';

/**
 * Turns a session's messages and parts, as the store shows them again and again while a run goes
 * on, into the ACP updates that bring an editor up to date: text as deltas, each tool call once as
 * `tool_call` and then as a `tool_call_update` whenever it changed, the todo list as a `plan`.
 * With `users`, the user's own prompts are sent too (a session being loaded); during a prompt
 * the editor already shows them.
 */
export class SessionUpdates {
  private readonly userMessages = new Set<string>();
  private readonly sentText = new Map<string, number>();
  private readonly sentCalls = new Map<string, string>();
  private sentPlan: string | undefined;

  constructor(
    private readonly directory: string,
    private readonly options: { users: boolean },
  ) {}

  next(messages: Message[], parts: Part[]): SessionUpdate[] {
    for (const message of messages) if (message.role === 'user') this.userMessages.add(message.id);
    return parts.flatMap((part) => this.partUpdates(part));
  }

  private partUpdates(part: Part): SessionUpdate[] {
    const fromUser = this.userMessages.has(part.messageID);
    if (part.type === 'text' && !part.synthetic) {
      if (fromUser && !this.options.users) return [];
      return this.delta(part.id, part.text, fromUser ? 'user_message_chunk' : 'agent_message_chunk');
    }
    if (part.type === 'reasoning') return this.delta(part.id, part.text, 'agent_thought_chunk');
    if (part.type === 'tool') return this.toolUpdates(part);
    return [];
  }

  private delta(
    partId: string,
    text: string,
    kind: 'user_message_chunk' | 'agent_message_chunk' | 'agent_thought_chunk',
  ): SessionUpdate[] {
    const sent = this.sentText.get(partId) ?? 0;
    // A retried model call writes its part again from the start: only what is longer is new.
    if (text.length <= sent) return [];
    this.sentText.set(partId, text.length);
    return [{ sessionUpdate: kind, content: { type: 'text', text: text.slice(sent) } }];
  }

  private toolUpdates(part: ToolPart): SessionUpdate[] {
    const call = toolCallOf(part, this.directory);
    const signature = JSON.stringify([call.status, call.title, call.content]);
    const sent = this.sentCalls.get(part.callID);
    if (sent === signature) return [];
    this.sentCalls.set(part.callID, signature);
    const updates: SessionUpdate[] = [
      sent === undefined
        ? { sessionUpdate: 'tool_call', ...call }
        : {
            sessionUpdate: 'tool_call_update',
            toolCallId: call.toolCallId,
            status: call.status,
            title: call.title,
            content: call.content,
            locations: call.locations,
            ...(call.rawOutput ? { rawOutput: call.rawOutput } : {}),
          },
    ];
    const plan = part.tool === 'todowrite' && part.state.status === 'completed' ? part.state.metadata.todos : undefined;
    if (Array.isArray(plan)) updates.push(...this.plan(plan as Todo[]));
    return updates;
  }

  private plan(todos: Todo[]): SessionUpdate[] {
    const entries = planEntries(todos);
    const signature = JSON.stringify(entries);
    if (signature === this.sentPlan) return [];
    this.sentPlan = signature;
    return [{ sessionUpdate: 'plan', entries }];
  }
}

/** A todo list as an ACP plan: a cancelled item is left out, ACP has no such status. */
export function planEntries(todos: Todo[]): PlanEntry[] {
  return todos
    .filter((todo) => todo.status !== 'cancelled')
    .map((todo) => ({
      content: todo.content,
      priority: todo.priority,
      status: todo.status as PlanEntry['status'],
    }));
}
