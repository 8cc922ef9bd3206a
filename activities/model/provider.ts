import type { LanguageModelV3 } from '@ai-sdk/provider';
import { parseModelId } from '../../core/models/model-id.js';
import type { LoomConfig } from '../../core/config/config.js';
import { KNOWN_PROVIDERS, knownProvider } from './known-providers.js';
import { PROVIDER_PACKAGES, providerPackage, type ModelProtocol } from './provider-packages.js';
import { streamLimits } from './stream-limits.js';
import { watchedFetch } from './stream-watchdog.js';
import { RateGates } from './rate-gates.js';
import { rateLimitedFetch } from './rate-limited-fetch.js';
import type { RateLimits } from '../store/rate-limits.js';
import { headerValueProblem } from './header-value.js';

export class ProviderError extends Error {
  override name = 'ProviderError';
}

/** No API key where this process looks: another machine's worker may still have one. */
export class MissingKeyError extends ProviderError {}

export interface ResolvedModel {
  model: LanguageModelV3;
  providerID: string;
  modelID: string;
  protocol: ModelProtocol;
  /** The `providerOptions` key the provider's package reads. */
  optionsKey: string;
  /** `provider.<id>.models.<model>.options`: provider options for every call to the model. */
  options: Record<string, unknown>;
  /** Whether tool calls the model writes as text are turned into calls (see tool-call-repair.ts). */
  toolCallRepair: boolean;
  /** The shared rate limits its requests keep to; the caller tells them each answer's tokens. */
  rateGates?: RateGates;
}

/**
 * Resolves `provider/model` to a language model. A provider is one Loom knows (openai, anthropic,
 * google, openrouter: see known-providers.ts) or one defined under `provider` in the config, whose
 * `npm` names the AI SDK package that speaks its protocol; without `npm`, a provider with a
 * `baseURL` is an OpenAI-compatible server. The API key comes from `options.apiKey`, else from the
 * provider's variables (`env`). Every request is watched: an answer that stops arriving is aborted
 * (see `watchedFetch`); given a store, every request keeps to the key's shared rate limits (see
 * `rateLimitedFetch`).
 */
export async function resolveModel(
  model: string,
  config: LoomConfig,
  env: NodeJS.ProcessEnv = process.env,
  limits: RateLimitOptions = {},
): Promise<ResolvedModel> {
  const { pkg, settings, ...resolved } = providerFor(model, config, env);
  const provider = config.provider?.[resolved.providerID];
  const stream = streamLimits(resolved.providerID, provider?.options ?? {}, env);
  const rateLimits = { provider: provider?.limit, model: provider?.models?.[resolved.modelID]?.limit };
  // Everything the model is made from: the same again (every step of every session on one
  // provider) reuses the model, which holds no state between requests.
  const key = JSON.stringify([settings, resolved, stream, rateLimits, limits.maxWaitMs]);
  const made = madeModels(limits.store);
  let making = made.get(key);
  if (!making) {
    const watched = watchedFetch(model, stream);
    const rateGates = limits.store && new RateGates(limits.store, settings, rateLimits);
    making = pkg
      .create({ ...settings, fetch: rateGates ? rateLimitedFetch(rateGates, watched, limits.maxWaitMs) : watched })
      .then((languageModel) => ({ ...resolved, rateGates, model: languageModel }));
    if (made.size >= MADE_MODELS_LIMIT) made.delete(made.keys().next().value!);
    made.set(key, making);
    making.catch(() => made.delete(key));
  }
  return making;
}

/** Models a worker keeps made, per rate-limit store (each worker's store is its own). */
const MADE_MODELS_LIMIT = 32;
const modelsByStore = new WeakMap<RateLimits, Map<string, Promise<ResolvedModel>>>();
const modelsWithoutStore = new Map<string, Promise<ResolvedModel>>();

function madeModels(store: RateLimits | undefined): Map<string, Promise<ResolvedModel>> {
  if (!store) return modelsWithoutStore;
  let made = modelsByStore.get(store);
  if (!made) modelsByStore.set(store, (made = new Map()));
  return made;
}

/** Where a model's rate limits are kept and how long one request may wait for them. */
export interface RateLimitOptions {
  /** The store every worker shares; without it (tests, the CLI's checks) requests are not gated. */
  store?: RateLimits;
  /** Waiting allowed per request, re-sends after 429s included (default 10 minutes). */
  maxWaitMs?: number;
}

/**
 * Everything `resolveModel` checks, without loading the provider's package: the CLI asks this
 * where the user typed the command, so a set-up mistake is said before anything starts.
 */
export function providerFor(model: string, config: LoomConfig, env: NodeJS.ProcessEnv = process.env) {
  const { providerID, modelID } = parseModelId(model);
  const configured = config.provider?.[providerID];
  const known = knownProvider(providerID);
  if (!configured && !known) {
    const providers = [...new Set([...Object.keys(KNOWN_PROVIDERS), ...Object.keys(config.provider ?? {})])].join(', ');
    throw new ProviderError(
      `Unknown provider "${providerID}" in model "${model}". Known providers: ${providers}. ` +
        `Define it under "provider" in loom.json with options.baseURL for an OpenAI-compatible server.`,
    );
  }
  const npm = configured?.npm ?? known?.npm ?? '@ai-sdk/openai-compatible';
  const pkg = providerPackage(npm);
  if (!pkg) {
    throw new ProviderError(
      `provider.${providerID}.npm is "${npm}", which Loom does not support. Supported packages: ${Object.keys(PROVIDER_PACKAGES).join(', ')}.`,
    );
  }
  const options = configured?.options ?? {};
  const movedTo = options.baseURL ?? (known?.baseURLEnv ? env[known.baseURLEnv] : undefined);
  const baseURL = movedTo ?? pkg.defaultBaseURL;
  const keyVariables = configured?.env ?? known?.keyEnv ?? [];
  const apiKey = options.apiKey ?? firstSet(env, keyVariables);
  if (pkg.protocol === 'openai-compatible' && !baseURL) {
    throw new ProviderError(
      `No base URL for provider "${providerID}": set provider.${providerID}.options.baseURL (and apiKey if the server needs one) in loom.json.`,
    );
  }
  // A local OpenAI-compatible server often needs no key; a hosted API always does.
  const keyless =
    (pkg.protocol === 'openai-compatible' && !known) || (pkg.protocol === 'openai' && movedTo !== undefined);
  if (!apiKey && !keyless) throw new MissingKeyError(missingKey(providerID, keyVariables));
  if (apiKey !== undefined) checkHeaderValue(apiKey, `The API key of provider "${providerID}"`);
  for (const [name, value] of Object.entries(options.headers ?? {}))
    checkHeaderValue(value, `provider.${providerID}.options.headers.${name}`);
  const modelConfig = configured?.models?.[modelID];
  return {
    pkg,
    settings: { providerID, modelID, baseURL, apiKey, headers: options.headers },
    providerID,
    modelID,
    protocol: pkg.protocol,
    optionsKey: pkg.optionsKey(providerID),
    options: modelConfig?.options ?? {},
    toolCallRepair:
      modelConfig?.tool_call_repair ?? options.tool_call_repair ?? (pkg.protocol === 'openai-compatible' && !known),
  };
}

function firstSet(env: NodeJS.ProcessEnv, names: string[]): string | undefined {
  for (const name of names) if (env[name]) return env[name];
  return undefined;
}

function missingKey(providerID: string, variables: string[]): string {
  const where = `provider.${providerID}.options.apiKey in loom.json`;
  if (variables.length === 0)
    return `No API key for provider "${providerID}": set ${where} (or list the variables it comes from in provider.${providerID}.env).`;
  return `No API key for provider "${providerID}": set ${variables.join(' or ')}, or ${where}.`;
}

function checkHeaderValue(value: string, what: string): void {
  const problem = headerValueProblem(value, what);
  if (problem) throw new ProviderError(problem);
}
