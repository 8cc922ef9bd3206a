import { describe, expect, it } from 'vitest';
import { billionsInName, promptVariant } from '../../core/models/prompt-variant.js';

describe('the prompt variant of a model', () => {
  it.each([
    ['qwen2.5-coder-1.5b-instruct', 1.5],
    ['Qwen2.5-Coder-7B-Instruct-GGUF', 7],
    ['llama3.2:3b', 3],
    ['deepseek-r1:1.5b', 1.5],
    ['gemma3:270m', 0.27],
    ['mixtral-8x7b-instruct', 56],
    ['Meta-Llama-3.1-70B-Instruct', 70],
    ['gpt-4o', undefined],
    ['gpt-4.1-mini', undefined],
    ['claude-sonnet-4-5-20250929', undefined],
    ['o3-mini', undefined],
    ['gemini-2.5-flash', undefined],
  ])('reads the size %s states: %s billion', (name, billions) => {
    expect(billionsInName(name)).toBe(billions);
  });

  it('is small for models named 8B or fewer, full otherwise, and the configuration wins', () => {
    expect(promptVariant({}, 'local/qwen2.5-coder-1.5b-instruct')).toBe('small');
    expect(promptVariant({}, 'ollama/llama3.1:8b')).toBe('small');
    expect(promptVariant({}, 'local/qwen2.5-coder-14b')).toBe('full');
    expect(promptVariant({}, 'anthropic/claude-sonnet-4-5')).toBe('full');
    expect(
      promptVariant(
        { provider: { local: { models: { 'qwen2.5-coder-1.5b': { prompt: 'full' } } } } },
        'local/qwen2.5-coder-1.5b',
      ),
    ).toBe('full');
    expect(
      promptVariant({ provider: { vllm: { models: { 'house-model': { prompt: 'small' } } } } }, 'vllm/house-model'),
    ).toBe('small');
  });
});
