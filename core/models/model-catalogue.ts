import type { ModelLimit } from './compaction.js';
import type { ModelCost } from '../config/config.js';

/** What Loom knows of a common model without configuration: the published window and prices. */
export interface CatalogueEntry {
  limit: ModelLimit;
  /** Dollars per million tokens. */
  cost: ModelCost;
  /** Accepts images and PDFs. */
  attachment: boolean;
  /** Thinks before answering (reasoning parts, reasoning tokens). */
  reasoning: boolean;
}

const entry = (
  context: number,
  output: number,
  [input, outputCost, cacheRead, cacheWrite]: [number, number, number?, number?],
  flags: { attachment?: boolean; reasoning?: boolean; input?: number } = {},
): CatalogueEntry => ({
  limit: { context, output, ...(flags.input ? { input: flags.input } : {}) },
  cost: {
    input,
    output: outputCost,
    ...(cacheRead === undefined ? {} : { cache_read: cacheRead }),
    ...(cacheWrite === undefined ? {} : { cache_write: cacheWrite }),
  },
  attachment: flags.attachment ?? true,
  reasoning: flags.reasoning ?? false,
});

const thinks = { reasoning: true };

// Published list prices (standard tier, prompts under any long-context surcharge), November 2026.
// A model id matches the longest name it starts with when what follows is a date or a word
// (`claude-sonnet-4-5-20250929`, `gpt-4o-2024-08-06`, `gpt-5-codex`), never a newer version
// (`claude-opus-4-6` is not `claude-opus-4`).
const OPENAI: Record<string, CatalogueEntry> = {
  'gpt-5': entry(400_000, 128_000, [1.25, 10, 0.125], { ...thinks, input: 272_000 }),
  'gpt-5-mini': entry(400_000, 128_000, [0.25, 2, 0.025], { ...thinks, input: 272_000 }),
  'gpt-5-nano': entry(400_000, 128_000, [0.05, 0.4, 0.005], { ...thinks, input: 272_000 }),
  'gpt-5-pro': entry(400_000, 272_000, [15, 120], { ...thinks, input: 128_000 }),
  'gpt-4.1': entry(1_047_576, 32_768, [2, 8, 0.5]),
  'gpt-4.1-mini': entry(1_047_576, 32_768, [0.4, 1.6, 0.1]),
  'gpt-4.1-nano': entry(1_047_576, 32_768, [0.1, 0.4, 0.025]),
  'gpt-4o': entry(128_000, 16_384, [2.5, 10, 1.25]),
  'gpt-4o-mini': entry(128_000, 16_384, [0.15, 0.6, 0.075]),
  'gpt-4-turbo': entry(128_000, 4_096, [10, 30]),
  o1: entry(200_000, 100_000, [15, 60, 7.5], thinks),
  'o1-pro': entry(200_000, 100_000, [150, 600], thinks),
  o3: entry(200_000, 100_000, [2, 8, 0.5], thinks),
  'o3-pro': entry(200_000, 100_000, [20, 80], thinks),
  'o3-mini': entry(200_000, 100_000, [1.1, 4.4, 0.55], { ...thinks, attachment: false }),
  'o4-mini': entry(200_000, 100_000, [1.1, 4.4, 0.275], thinks),
};

const ANTHROPIC: Record<string, CatalogueEntry> = {
  'claude-opus-4-5': entry(200_000, 64_000, [5, 25, 0.5, 6.25], thinks),
  'claude-opus-4-1': entry(200_000, 32_000, [15, 75, 1.5, 18.75], thinks),
  'claude-opus-4': entry(200_000, 32_000, [15, 75, 1.5, 18.75], thinks),
  'claude-sonnet-4-5': entry(200_000, 64_000, [3, 15, 0.3, 3.75], thinks),
  'claude-sonnet-4': entry(200_000, 64_000, [3, 15, 0.3, 3.75], thinks),
  'claude-haiku-4-5': entry(200_000, 64_000, [1, 5, 0.1, 1.25], thinks),
  'claude-3-7-sonnet': entry(200_000, 64_000, [3, 15, 0.3, 3.75], thinks),
  'claude-3-5-sonnet': entry(200_000, 8_192, [3, 15, 0.3, 3.75]),
  'claude-3-5-haiku': entry(200_000, 8_192, [0.8, 4, 0.08, 1]),
};

const GOOGLE: Record<string, CatalogueEntry> = {
  'gemini-3-pro-preview': entry(1_048_576, 65_536, [2, 12, 0.2], thinks),
  'gemini-2.5-pro': entry(1_048_576, 65_536, [1.25, 10, 0.31], thinks),
  'gemini-2.5-flash': entry(1_048_576, 65_536, [0.3, 2.5, 0.075], thinks),
  'gemini-2.5-flash-lite': entry(1_048_576, 65_536, [0.1, 0.4, 0.025], thinks),
  'gemini-2.0-flash': entry(1_048_576, 8_192, [0.1, 0.4, 0.025]),
  'gemini-2.0-flash-lite': entry(1_048_576, 8_192, [0.075, 0.3]),
};

const VARIANT = /^(\d{8}|\d{4}-\d{2}-\d{2}|[a-z])/;

const BY_PROVIDER: Record<string, Record<string, CatalogueEntry>> = {
  openai: OPENAI,
  anthropic: ANTHROPIC,
  google: GOOGLE,
};

/**
 * The catalogue's entry for `provider/model`, if any. OpenRouter's ids name the maker
 * (`openrouter/anthropic/claude-sonnet-4.5`) and are looked up in the maker's table.
 */
export function catalogueEntry(providerID: string, modelID: string): CatalogueEntry | undefined {
  if (providerID === 'openrouter') {
    const slash = modelID.indexOf('/');
    if (slash < 0) return undefined;
    // OpenRouter writes Anthropic's versions with dots: claude-sonnet-4.5.
    const maker = modelID.slice(0, slash);
    const name = modelID.slice(slash + 1);
    return catalogueEntry(maker, maker === 'anthropic' ? name.replace(/(\d)\.(\d)/g, '$1-$2') : name);
  }
  const table = BY_PROVIDER[providerID];
  if (!table) return undefined;
  let best: string | undefined;
  for (const name of Object.keys(table)) {
    const matches =
      modelID === name || (modelID.startsWith(`${name}-`) && VARIANT.test(modelID.slice(name.length + 1)));
    if (matches && (!best || name.length > best.length)) best = name;
  }
  return best ? table[best] : undefined;
}

/** Every model of the catalogue as `provider/model`, for a person to pick from. */
export function catalogueModels(): string[] {
  return Object.entries(BY_PROVIDER).flatMap(([provider, table]) =>
    Object.keys(table).map((model) => `${provider}/${model}`),
  );
}
