import type { LanguageModelV3 } from '@ai-sdk/provider';

/** What every provider package is created with. */
export interface ProviderSettings {
  providerID: string;
  modelID: string;
  baseURL?: string;
  apiKey?: string;
  headers?: Record<string, string>;
  fetch: typeof globalThis.fetch;
}

/** The wire protocol a model speaks; decides its caching marks, tool-call repair default and more. */
export type ModelProtocol = 'openai' | 'openai-compatible' | 'anthropic' | 'google';

export interface ProviderPackage {
  protocol: ModelProtocol;
  /** The `providerOptions` key the package reads its options from. */
  optionsKey: (providerID: string) => string;
  /** Where the API is when the configuration names no `baseURL`. */
  defaultBaseURL?: string;
  /** Loaded on first use: a worker pays only for the providers its sessions call. */
  create: (settings: ProviderSettings) => Promise<LanguageModelV3>;
}

/**
 * A package's module, imported on its first use and kept: `import()` again on every model call
 * would go through the module loader (and tsx's hooks, from the sources) each time.
 */
function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}

const openAICompatiblePackage = onFirstUse(() => import('@ai-sdk/openai-compatible'));
const openAIPackage = onFirstUse(() => import('@ai-sdk/openai'));
const anthropicPackage = onFirstUse(() => import('@ai-sdk/anthropic'));
const googlePackage = onFirstUse(() => import('@ai-sdk/google'));

async function openAICompatible(settings: ProviderSettings): Promise<LanguageModelV3> {
  const { createOpenAICompatible } = await openAICompatiblePackage();
  // resolveModel has checked that there is one.
  const provider = createOpenAICompatible({
    name: settings.providerID,
    baseURL: settings.baseURL!,
    apiKey: settings.apiKey,
    headers: settings.headers,
    fetch: settings.fetch,
    includeUsage: true,
  });
  return provider.chatModel(settings.modelID);
}

/**
 * The AI SDK packages `provider.<id>.npm` may name. OpenRouter is served through the
 * OpenAI-compatible package (its API is OpenAI's chat, with reasoning in `reasoning`), which
 * spares Loom a package that pins its own copy of the AI SDK.
 */
export const PROVIDER_PACKAGES: Record<string, ProviderPackage> = {
  '@ai-sdk/openai': {
    protocol: 'openai',
    optionsKey: () => 'openai',
    async create(settings) {
      const { createOpenAI } = await openAIPackage();
      const provider = createOpenAI({
        baseURL: settings.baseURL ?? 'https://api.openai.com/v1',
        apiKey: settings.apiKey ?? 'not-needed',
        headers: settings.headers,
        name: settings.providerID,
        fetch: settings.fetch,
      });
      // Another address is an OpenAI-compatible server: those speak Chat Completions, not Responses.
      return settings.baseURL ? provider.chat(settings.modelID) : provider.responses(settings.modelID);
    },
  },
  '@ai-sdk/openai-compatible': {
    protocol: 'openai-compatible',
    optionsKey: (providerID) => providerID,
    create: openAICompatible,
  },
  '@openrouter/ai-sdk-provider': {
    protocol: 'openai-compatible',
    optionsKey: (providerID) => providerID,
    defaultBaseURL: 'https://openrouter.ai/api/v1',
    create: openAICompatible,
  },
  '@ai-sdk/anthropic': {
    protocol: 'anthropic',
    optionsKey: () => 'anthropic',
    async create(settings) {
      const { createAnthropic } = await anthropicPackage();
      return createAnthropic({
        baseURL: settings.baseURL,
        apiKey: settings.apiKey,
        headers: settings.headers,
        fetch: settings.fetch,
      })(settings.modelID);
    },
  },
  '@ai-sdk/google': {
    protocol: 'google',
    optionsKey: () => 'google',
    async create(settings) {
      const { createGoogleGenerativeAI } = await googlePackage();
      return createGoogleGenerativeAI({
        baseURL: settings.baseURL,
        apiKey: settings.apiKey,
        headers: settings.headers,
        fetch: settings.fetch,
      })(settings.modelID);
    },
  },
};

export function providerPackage(npm: string): ProviderPackage | undefined {
  return Object.hasOwn(PROVIDER_PACKAGES, npm) ? PROVIDER_PACKAGES[npm] : undefined;
}
