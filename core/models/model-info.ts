import type { ModelLimit } from './compaction.js';
import type { ModelCost, ModelLimits, ProviderConfig } from '../config/config.js';
import { catalogueEntry } from './model-catalogue.js';
import { parseModelId } from './model-id.js';

/** What Loom knows of a model: its window, its prices and what it accepts. */
export interface ModelInfo {
  limit?: ModelLimit;
  cost?: ModelCost;
  attachment: boolean;
  reasoning: boolean;
}

/**
 * The model's facts: the configuration's `provider.<id>.models.<id>` first, field by field, then
 * the built-in catalogue of common models. OpenAI's models not in the catalogue still accept
 * attachments, as all its current ones do; any other unknown model is taken to accept none.
 */
export function modelInfo(config: { provider?: Record<string, ProviderConfig> }, model: string): ModelInfo {
  const { providerID, modelID } = parseModelId(model);
  const configured = config.provider?.[providerID]?.models?.[modelID];
  const known = catalogueEntry(providerID, modelID);
  return {
    limit: windowOf(configured?.limit) ?? known?.limit,
    cost: configured?.cost ?? known?.cost,
    attachment: configured?.attachment ?? known?.attachment ?? providerID === 'openai',
    reasoning: known?.reasoning ?? false,
  };
}

/** The window of a configured `limit`, if it gives one (it may give only rate limits). */
function windowOf(limit: ModelLimits | undefined): ModelLimit | undefined {
  if (limit?.context === undefined || limit.output === undefined) return undefined;
  const { context, input, output } = limit;
  return input === undefined ? { context, output } : { context, input, output };
}
