import { createOpenAI } from '@ai-sdk/openai';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import { parseModelId } from '../../core/model-id.js';
import type { LoomConfig } from '../config/schema.js';
import { streamLimits } from './stream-limits.js';
import { watchedFetch } from './stream-watchdog.js';

const OPENAI_API_URL = 'https://api.openai.com/v1';

export class ProviderError extends Error {
  override name = 'ProviderError';
}

/**
 * Resolves `provider/model` to a language model. `openai` talks to OpenAI (Responses API) with
 * `OPENAI_API_KEY`; a provider with a `baseURL` (from config, or `OPENAI_BASE_URL` for `openai`)
 * is an OpenAI-compatible server and gets Chat Completions, which is what those servers speak.
 * Every request is watched: an answer that stops arriving is aborted (see `watchedFetch`).
 */
export function resolveModel(model: string, config: LoomConfig, env: NodeJS.ProcessEnv = process.env): LanguageModelV3 {
  const { providerID, modelID } = parseModelId(model);
  const configured = config.provider?.[providerID];
  if (!configured && providerID !== 'openai') {
    const known = ['openai', ...Object.keys(config.provider ?? {})].join(', ');
    throw new ProviderError(
      `Unknown provider "${providerID}" in model "${model}". Known providers: ${known}. ` +
        `Define it under "provider" in loom.json with options.baseURL for an OpenAI-compatible server.`,
    );
  }
  const options = configured?.options ?? {};
  const baseURL = options.baseURL ?? (providerID === 'openai' ? env.OPENAI_BASE_URL : undefined);
  const apiKey = options.apiKey ?? (providerID === 'openai' ? env.OPENAI_API_KEY : undefined);
  if (!apiKey && !baseURL) {
    // OPENAI_API_KEY only applies to `openai`; other providers are configured in loom.json.
    throw new ProviderError(
      providerID === 'openai'
        ? 'No API key for provider "openai": set OPENAI_API_KEY, or configure provider.openai.options in loom.json.'
        : `No base URL for provider "${providerID}": set provider.${providerID}.options.baseURL (and apiKey if the server needs one) in loom.json.`,
    );
  }
  const provider = createOpenAI({
    baseURL: baseURL ?? OPENAI_API_URL,
    apiKey: apiKey ?? 'not-needed',
    headers: options.headers,
    name: providerID,
    fetch: watchedFetch(model, streamLimits(providerID, options, env)),
  });
  return baseURL ? provider.chat(modelID) : provider.responses(modelID);
}
