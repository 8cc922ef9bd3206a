/**
 * Providers Loom knows without configuration, as OpenCode's catalogue has them: the AI SDK package
 * that speaks each one's protocol and the variables its API key (and base URL) come from.
 * `provider.<id>` in the config may override any of it, or define a provider of its own.
 */
export interface KnownProvider {
  npm: string;
  /** Variables the API key is read from, first set wins. */
  keyEnv: string[];
  /** A variable that moves the provider to another address (a proxy, a compatible server). */
  baseURLEnv?: string;
  /** The model a run uses when nothing names one and only this provider's key is set. */
  defaultModel: string;
}

export const KNOWN_PROVIDERS: Record<string, KnownProvider> = {
  openai: {
    npm: '@ai-sdk/openai',
    keyEnv: ['OPENAI_API_KEY'],
    baseURLEnv: 'OPENAI_BASE_URL',
    defaultModel: 'openai/gpt-4.1',
  },
  anthropic: {
    npm: '@ai-sdk/anthropic',
    keyEnv: ['ANTHROPIC_API_KEY'],
    baseURLEnv: 'ANTHROPIC_BASE_URL',
    defaultModel: 'anthropic/claude-sonnet-4-5',
  },
  google: {
    npm: '@ai-sdk/google',
    keyEnv: ['GOOGLE_GENERATIVE_AI_API_KEY', 'GEMINI_API_KEY'],
    baseURLEnv: 'GOOGLE_GENERATIVE_AI_BASE_URL',
    defaultModel: 'google/gemini-2.5-pro',
  },
  openrouter: {
    npm: '@openrouter/ai-sdk-provider',
    keyEnv: ['OPENROUTER_API_KEY'],
    defaultModel: 'openrouter/anthropic/claude-sonnet-4.5',
  },
};

/** The variables whose key picks a default model, in the order they are tried. */
export const DEFAULT_MODEL_KEYS = Object.values(KNOWN_PROVIDERS).flatMap((provider) => provider.keyEnv);

/** With no model named anywhere: the default of the first known provider whose key is set. */
export function defaultModelFromKeys(env: NodeJS.ProcessEnv): string | undefined {
  return Object.values(KNOWN_PROVIDERS).find((provider) => provider.keyEnv.some((name) => env[name]))?.defaultModel;
}

export function knownProvider(providerID: string): KnownProvider | undefined {
  return Object.hasOwn(KNOWN_PROVIDERS, providerID) ? KNOWN_PROVIDERS[providerID] : undefined;
}
