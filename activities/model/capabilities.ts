import { parseModelId } from '../../core/model-id.js';
import type { LoomConfig } from '../config/schema.js';

/** Whether a model accepts images and PDFs: as configured, else OpenAI's models do and others don't. */
export function acceptsAttachments(config: LoomConfig, model: string): boolean {
  const { providerID, modelID } = parseModelId(model);
  return config.provider?.[providerID]?.models?.[modelID]?.attachment ?? providerID === 'openai';
}
