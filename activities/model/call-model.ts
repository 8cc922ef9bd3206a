import { Context } from '@temporalio/activity';
import { jsonSchema, streamText, tool, type LanguageModelUsage, type ToolSet } from 'ai';
import { z } from 'zod';
import { idTime } from '../../core/ids.js';
import type { AssistantMessage, Tokens } from '../../core/message.js';
import type { ModelStepInput, ModelStepResult } from '../../core/model-step.js';
import { FINAL_TEXT_LIMIT } from '../../core/run.js';
import type { ToolCall } from '../../core/tool-call.js';
import { findTool } from '../../core/tools/index.js';
import { describeTaskTool } from '../../core/tools/task.js';
import type { ToolSpec } from '../../core/tool-spec.js';
import { loadConfig } from '../config/load.js';
import type { ActivityDeps } from '../deps.js';
import { AnswerWriter } from './answer-writer.js';
import { classifyModelError } from './errors.js';
import { buildModelRequest } from './model-request.js';
import { resolveModel } from './provider.js';

const HEARTBEAT_EVERY_MS = 1_000;

export function createModelActivities({ store, env, dataDir }: ActivityDeps) {
  /**
   * One model call: reads the conversation from the store, streams the answer into the assistant
   * message's parts, and returns only what the loop needs. Each attempt starts the message afresh.
   */
  async function callModel(input: ModelStepInput): Promise<ModelStepResult> {
    const context = Context.current();
    const heartbeat = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
    const writer = new AnswerWriter(store, { sessionID: input.sessionId, messageID: input.messageId });
    const message: AssistantMessage = {
      id: input.messageId,
      sessionID: input.sessionId,
      role: 'assistant',
      parentID: input.parentMessageId,
      agent: input.agent,
      model: input.model,
      step: input.step,
      time: { created: idTime(input.messageId) },
      tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
      cost: 0,
    };
    try {
      await store.deleteParts(input.messageId);
      await store.saveMessage(message);
      const config = loadConfig(input.directory, env);
      const model = resolveModel(input.model, config, env);
      const history = (await store.messages(input.sessionId)).filter((m) => m.info.id !== input.messageId);
      const { agent, agents, system, messages } = buildModelRequest(input, config, dataDir, history);

      const stream = streamText({
        model,
        system,
        messages,
        tools: toolSet(input.tools, (spec) => (spec.name === 'task' ? describeTaskTool(agents, agent.permission) : spec.description)),
        temperature: agent.temperature,
        topP: agent.topP,
        providerOptions: Object.keys(agent.options).length > 0 ? { openai: agent.options as never } : undefined,
        maxRetries: 0,
        abortSignal: context.cancellationSignal,
        onError: () => undefined,
      });
      const toolCalls: ToolCall[] = [];
      let finish = 'unknown';
      let usage: LanguageModelUsage | undefined;
      for await (const chunk of stream.fullStream) {
        switch (chunk.type) {
          case 'text-delta':
            writer.text(chunk.id, chunk.text);
            break;
          case 'text-end':
            writer.end('text', chunk.id);
            break;
          case 'reasoning-delta':
            writer.reasoning(chunk.id, chunk.text);
            break;
          case 'reasoning-end':
            writer.end('reasoning', chunk.id);
            break;
          case 'tool-input-start':
            writer.toolInput(chunk.id, chunk.toolName, '');
            break;
          case 'tool-input-delta':
            writer.toolInput(chunk.id, '', chunk.delta);
            break;
          case 'tool-call': {
            const raw = typeof chunk.input === 'string' ? chunk.input : JSON.stringify(chunk.input ?? {});
            const part = writer.toolCall(chunk.toolCallId, chunk.toolName, chunk.input, raw);
            toolCalls.push({ partId: part.id, callId: chunk.toolCallId, tool: chunk.toolName, input: chunk.input });
            break;
          }
          case 'finish':
            finish = chunk.finishReason;
            usage = chunk.totalUsage;
            break;
          case 'error':
            throw chunk.error;
          case 'abort':
            throw context.cancellationSignal.reason ?? new Error('Model call aborted');
        }
      }
      await writer.flush();
      const tokens = toTokens(usage);
      await store.saveMessage({ ...message, finish, tokens, time: { ...message.time, completed: Date.now() } });
      return { finish, toolCalls, tokens, text: cut(writer.textOf()) };
    } catch (error) {
      await writer.flush().catch(() => undefined);
      if (context.cancellationSignal.aborted) throw context.cancellationSignal.reason;
      throw classifyModelError(error, input.model);
    } finally {
      clearInterval(heartbeat);
    }
  }

  return { callModel };
}

/** Tools offered without `execute`: the model's calls come back to the workflow, which runs them. */
function toolSet(names: string[], describe: (spec: ToolSpec) => string): ToolSet {
  const tools: ToolSet = {};
  for (const name of names) {
    const spec = findTool(name);
    if (!spec) continue;
    const schema = z.toJSONSchema(spec.parameters, { target: 'draft-7', io: 'input' });
    tools[name] = tool({ description: describe(spec), inputSchema: jsonSchema(schema as never) });
  }
  return tools;
}

function toTokens(usage: LanguageModelUsage | undefined): Tokens {
  const cacheRead = usage?.inputTokenDetails?.cacheReadTokens ?? 0;
  return {
    input: (usage?.inputTokens ?? 0) - cacheRead,
    output: usage?.outputTokens ?? 0,
    reasoning: usage?.outputTokenDetails?.reasoningTokens ?? 0,
    cache: { read: cacheRead, write: usage?.inputTokenDetails?.cacheWriteTokens ?? 0 },
  };
}

function cut(text: string): string {
  return text.length <= FINAL_TEXT_LIMIT ? text : `${text.slice(0, FINAL_TEXT_LIMIT)}\n… (cut; the whole answer is in the session)`;
}
