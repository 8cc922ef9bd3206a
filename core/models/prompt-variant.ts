import type { ProviderConfig } from '../config/config.js';
import { parseModelId } from './model-id.js';

/**
 * How much Loom tells a model. `full`: the whole prompt and every tool, for capable models.
 * `small`: a short prompt, the few tools a small model can use well, short tool descriptions with
 * an example call each, for models of a few billion parameters, which lose the thread in a long
 * prompt and pay for every token of it (a 1.5B model on two CPU cores reads ~30 tokens a second).
 */
export type PromptVariant = 'full' | 'small';

/** Models whose names say this many billion parameters or fewer get the `small` variant. */
export const SMALL_MODEL_MAX_BILLIONS = 8;

/**
 * The parameters a model's name states, in billions: `qwen2.5-coder-1.5b-instruct` → 1.5,
 * `llama3.2:3b` → 3, `Qwen2.5-Coder-7B-Instruct-GGUF` → 7, `mixtral-8x7b` → 56, `smollm-360m` → 0.36.
 * Undefined when the name says nothing (`gpt-4o`, `claude-sonnet-4-5`).
 */
export function billionsInName(modelID: string): number | undefined {
  const match = /(?:^|[^a-z0-9.])(?:(\d+)x)?(\d+(?:\.\d+)?)([bm])(?![a-z0-9])/i.exec(modelID);
  if (!match) return undefined;
  const [, experts, size, unit] = match;
  const billions = Number(size) * (unit.toLowerCase() === 'm' ? 0.001 : 1) * (experts ? Number(experts) : 1);
  return billions > 0 ? billions : undefined;
}

/** The variant for `provider/model`: the model's `prompt` in config, else what its name says of its size. */
export function promptVariant(config: { provider?: Record<string, ProviderConfig> }, model: string): PromptVariant {
  const { providerID, modelID } = parseModelId(model);
  const configured = config.provider?.[providerID]?.models?.[modelID]?.prompt;
  if (configured) return configured;
  const billions = billionsInName(modelID);
  return billions !== undefined && billions <= SMALL_MODEL_MAX_BILLIONS ? 'small' : 'full';
}
