import type { LanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import type { LoomConfig } from '../../activities/config/schema.js';
import { ProviderError, resolveModel } from '../../activities/model/provider.js';

const LOCAL: LoomConfig = { provider: { local: { options: { baseURL: 'http://127.0.0.1:1234/v1' } } } };

/** The provider id and model id the AI SDK reports for a resolved model. */
function describeModel(model: LanguageModel): { provider: string; modelId: string } {
  if (typeof model === 'string') throw new Error(`expected a model object, got "${model}"`);
  return { provider: model.provider, modelId: model.modelId };
}

describe('resolveModel', () => {
  it('refuses an unknown provider, listing the known ones', () => {
    const resolve = () => resolveModel('mystery/m1', LOCAL, {});
    expect(resolve).toThrow(ProviderError);
    expect(resolve).toThrow('Unknown provider "mystery" in model "mystery/m1". Known providers: openai, local.');
  });

  it('refuses a malformed model id, showing the expected form', () => {
    expect(() => resolveModel('gpt-4o', {}, { OPENAI_API_KEY: 'sk-test' })).toThrow('expected provider/model');
  });

  it('refuses openai without an API key or base URL, saying what to set', () => {
    const resolve = () => resolveModel('openai/gpt-4o', {}, {});
    expect(resolve).toThrow(ProviderError);
    expect(resolve).toThrow('No API key for provider "openai"');
    expect(resolve).toThrow('OPENAI_API_KEY');
  });

  it('refuses a configured provider without a base URL, pointing at its options rather than OPENAI_API_KEY', () => {
    const resolve = () => resolveModel('local/m', { provider: { local: { name: 'Local' } } }, { OPENAI_API_KEY: 'sk-test' });
    expect(resolve).toThrow(ProviderError);
    expect(resolve).toThrow('No base URL for provider "local": set provider.local.options.baseURL');
    expect(resolve).not.toThrow('OPENAI_API_KEY');
  });

  it('uses Chat Completions for a configured OpenAI-compatible server, keeping slashes in the model id', () => {
    expect(describeModel(resolveModel('local/qwen/2.5-coder', LOCAL, {}))).toEqual({
      provider: 'local.chat',
      modelId: 'qwen/2.5-coder',
    });
  });

  it('uses the Responses API for openai with an API key', () => {
    expect(describeModel(resolveModel('openai/gpt-4o', {}, { OPENAI_API_KEY: 'sk-test' }))).toEqual({
      provider: 'openai.responses',
      modelId: 'gpt-4o',
    });
  });

  it('switches openai to Chat Completions when OPENAI_BASE_URL points at a compatible server', () => {
    const env = { OPENAI_BASE_URL: 'http://127.0.0.1:1234/v1' };
    expect(describeModel(resolveModel('openai/gpt-4o', {}, env)).provider).toBe('openai.chat');
  });

  it('uses the base URL configured for openai too', () => {
    const config: LoomConfig = { provider: { openai: { options: { baseURL: 'http://127.0.0.1:1234/v1' } } } };
    expect(describeModel(resolveModel('openai/gpt-4o', config, {})).provider).toBe('openai.chat');
  });
});
