import { SpanKind, SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';
import type { Tokens } from '../../core/records/tokens.js';

/**
 * Loom's spans inside activities, named and described by OpenTelemetry's GenAI conventions: a
 * model call (`chat <model>`) and a tool call (`execute_tool <tool>`), each under the activity's
 * own span from Temporal's interceptors. Without tracing they are no-ops.
 */
const tracer = () => trace.getTracer('loom');

export interface ModelCallFacts {
  sessionId: string;
  model: string;
  agent: string;
  step?: number;
}

export function inModelCallSpan<T extends { finish: string; tokens: Tokens; cost?: number }>(
  facts: ModelCallFacts,
  call: () => Promise<T>,
): Promise<T> {
  const slash = facts.model.indexOf('/');
  const provider = facts.model.slice(0, slash);
  const model = facts.model.slice(slash + 1);
  const attributes: Attributes = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': provider,
    // The name the conventions used before `gen_ai.provider.name`, which older backends still read.
    'gen_ai.system': provider,
    'gen_ai.request.model': model,
    'gen_ai.conversation.id': facts.sessionId,
    'gen_ai.agent.name': facts.agent,
    'loom.session.id': facts.sessionId,
    ...(facts.step !== undefined ? { 'loom.step': facts.step } : {}),
  };
  return inSpan(`chat ${model}`, SpanKind.CLIENT, attributes, async (span) => {
    const answer = await call();
    span.setAttributes({
      'gen_ai.response.finish_reasons': [answer.finish],
      'gen_ai.usage.input_tokens': answer.tokens.input + answer.tokens.cache.read + answer.tokens.cache.write,
      'gen_ai.usage.output_tokens': answer.tokens.output,
      'loom.usage.reasoning_tokens': answer.tokens.reasoning,
      'loom.usage.cache_read_tokens': answer.tokens.cache.read,
      'loom.usage.cache_write_tokens': answer.tokens.cache.write,
      'loom.cost_usd': answer.cost ?? 0,
    });
    return answer;
  });
}

export function inToolCallSpan<T extends { status: string; preview?: string }>(
  call: { sessionId: string; tool: string; callId: string; partId: string },
  run: () => Promise<T>,
): Promise<T> {
  const attributes: Attributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': call.tool,
    'gen_ai.tool.call.id': call.callId,
    'gen_ai.conversation.id': call.sessionId,
    'loom.session.id': call.sessionId,
    'loom.part.id': call.partId,
  };
  return inSpan(`execute_tool ${call.tool}`, SpanKind.INTERNAL, attributes, async (span) => {
    const result = await run();
    span.setAttribute('loom.tool.status', result.status);
    if (result.status === 'error') span.setStatus({ code: SpanStatusCode.ERROR, message: result.preview });
    return result;
  });
}

function inSpan<T>(name: string, kind: SpanKind, attributes: Attributes, fn: (span: Span) => Promise<T>): Promise<T> {
  return tracer().startActiveSpan(name, { kind, attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      const failure = error as { message?: string; type?: string; name?: string };
      span.setAttribute('error.type', failure.type ?? failure.name ?? 'Error');
      span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message ?? String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}
