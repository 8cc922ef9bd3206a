export interface ModelRef {
  providerID: string;
  modelID: string;
}

export const MODEL_ID_FORM = 'provider/model, e.g. openai/gpt-4o or local/qwen2.5-coder';

/** Splits `provider/model` at the first slash (model ids may contain slashes themselves). */
export function parseModelId(value: string): ModelRef {
  const slash = value.indexOf('/');
  const providerID = value.slice(0, slash).trim();
  const modelID = value.slice(slash + 1).trim();
  if (slash < 0 || !providerID || !modelID || /\s/.test(value)) {
    throw new Error(`Invalid model "${value}": expected ${MODEL_ID_FORM}`);
  }
  return { providerID, modelID };
}
