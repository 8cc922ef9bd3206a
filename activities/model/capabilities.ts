import { modelInfo } from '../../core/model-info.js';
import type { LoomConfig } from '../config/schema.js';

/** Whether a model accepts images and PDFs: as configured, else as the catalogue says. */
export function acceptsAttachments(config: LoomConfig, model: string): boolean {
  return modelInfo(config, model).attachment;
}
