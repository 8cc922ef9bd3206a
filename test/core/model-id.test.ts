import { describe, expect, it } from 'vitest';
import { MODEL_ID_FORM, parseModelId } from '../../core/models/model-id.js';

describe('parseModelId', () => {
  it('splits provider/model', () => {
    expect(parseModelId('openai/gpt-4o')).toEqual({ providerID: 'openai', modelID: 'gpt-4o' });
  });

  it('splits at the first slash, so model ids may contain slashes', () => {
    expect(parseModelId('openrouter/anthropic/claude-3.5')).toEqual({
      providerID: 'openrouter',
      modelID: 'anthropic/claude-3.5',
    });
  });

  it.each(['gpt-4o', '/x', 'x/', 'a b/c', '', '/'])('rejects %j, showing the expected form', (value) => {
    expect(() => parseModelId(value)).toThrow(`Invalid model "${value}": expected ${MODEL_ID_FORM}`);
  });

  it('shows examples in the expected form', () => {
    expect(MODEL_ID_FORM).toContain('provider/model');
    expect(MODEL_ID_FORM).toContain('openai/gpt-4o');
  });
});
