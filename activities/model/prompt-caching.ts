import type { LanguageModelV3Prompt, SharedV3ProviderOptions } from '@ai-sdk/provider';
import { mergeByProvider } from './merge-by-provider.js';
import type { ResolvedModel } from './provider.js';

const EPHEMERAL = { type: 'ephemeral' } as const;

/**
 * Anthropic caches a prompt's prefix only up to the points marked for it. As OpenCode does, the
 * system prompt and the last two messages are marked: each step then reads everything before its
 * newest turn from the cache (a tenth of the price) and writes the new turn for the next step.
 * Claude models behind OpenRouter take the same mark in OpenAI's message shape.
 */
export function withCacheBreakpoints(prompt: LanguageModelV3Prompt, model: ResolvedModel): LanguageModelV3Prompt {
  const mark = cacheMark(model);
  if (!mark) return prompt;
  const system = prompt.filter((message) => message.role === 'system').slice(0, 2);
  const latest = prompt.filter((message) => message.role !== 'system').slice(-2);
  for (const message of [...system, ...latest])
    message.providerOptions = mergeByProvider(message.providerOptions, mark);
  return prompt;
}

function cacheMark(model: ResolvedModel): SharedV3ProviderOptions | undefined {
  if (model.protocol === 'anthropic') return { anthropic: { cacheControl: EPHEMERAL } };
  if (model.protocol === 'openai-compatible' && /claude|anthropic/i.test(model.modelID))
    return { openaiCompatible: { cache_control: EPHEMERAL } };
  return undefined;
}
