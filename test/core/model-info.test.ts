import { describe, expect, it } from 'vitest';
import { costOf } from '../../core/models/cost.js';
import { catalogueEntry } from '../../core/models/model-catalogue.js';
import { modelInfo } from '../../core/models/model-info.js';
import type { Tokens } from '../../core/records/tokens.js';

describe('the model catalogue', () => {
  it.each([
    ['anthropic', 'claude-sonnet-4-5', 3],
    ['anthropic', 'claude-sonnet-4-5-20250929', 3],
    ['anthropic', 'claude-opus-4-1-20250805', 15],
    ['openai', 'gpt-4o-mini', 0.15],
    ['openai', 'gpt-4o-2024-08-06', 2.5],
    ['openai', 'gpt-5-codex', 1.25],
    ['google', 'gemini-2.5-flash', 0.3],
    ['google', 'gemini-2.5-flash-lite', 0.1],
    ['openrouter', 'anthropic/claude-sonnet-4.5', 3],
    ['openrouter', 'google/gemini-2.5-pro', 1.25],
  ])('prices %s/%s at $%s per million input tokens', (provider, model, input) => {
    expect(catalogueEntry(provider, model)?.cost.input).toBe(input);
  });

  it.each([
    ['anthropic', 'claude-opus-4-6'],
    ['openai', 'gpt-5.1'],
    ['local', 'gpt-4o'],
    ['openrouter', 'claude-sonnet-4.5'],
  ])('knows nothing of %s/%s rather than guess from a neighbour', (provider, model) => {
    expect(catalogueEntry(provider, model)).toBeUndefined();
  });
});

describe('modelInfo', () => {
  const config = {
    provider: {
      anthropic: { models: { 'claude-sonnet-4-5': { limit: { context: 1_000_000, output: 64_000 } } } },
      local: { models: { qwen: { cost: { input: 1, output: 2 }, attachment: true } } },
    },
  };

  it('takes the configuration field by field, then the catalogue', () => {
    expect(modelInfo(config, 'anthropic/claude-sonnet-4-5')).toEqual({
      limit: { context: 1_000_000, output: 64_000 },
      cost: { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 },
      attachment: true,
      reasoning: true,
    });
    expect(modelInfo(config, 'local/qwen')).toEqual({
      limit: undefined,
      cost: { input: 1, output: 2 },
      attachment: true,
      reasoning: false,
    });
  });

  it('takes only the window from a configured limit, and the catalogue’s when it gives only rate limits', () => {
    const limited = {
      provider: {
        anthropic: { models: { 'claude-sonnet-4-5': { limit: { rpm: 50, tpm: 30_000 } } } },
        local: { models: { qwen: { limit: { context: 8_000, output: 2_000, rpm: 6 } } } },
      },
    };
    expect(modelInfo(limited, 'anthropic/claude-sonnet-4-5').limit).toEqual(
      modelInfo({}, 'anthropic/claude-sonnet-4-5').limit,
    );
    expect(modelInfo(limited, 'local/qwen').limit).toEqual({ context: 8_000, output: 2_000 });
  });

  it('lets OpenAI’s uncatalogued models take attachments, and no other unknown model', () => {
    expect(modelInfo({}, 'openai/gpt-future').attachment).toBe(true);
    expect(modelInfo({}, 'local/llava').attachment).toBe(false);
    expect(modelInfo({}, 'openai/o3-mini').attachment).toBe(false);
  });
});

describe('costOf', () => {
  const tokens: Tokens = {
    input: 1_000_000,
    output: 200_000,
    reasoning: 150_000,
    cache: { read: 2_000_000, write: 100_000 },
  };

  it('bills input, output (reasoning included once), cache reads and writes at their prices', () => {
    expect(costOf(tokens, { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 })).toBeCloseTo(
      3 + 3 + 0.6 + 0.375,
      10,
    );
  });

  it('bills cache tokens as input when the model has no cache prices, and nothing without prices', () => {
    expect(costOf(tokens, { input: 1, output: 2 })).toBeCloseTo(1 + 0.4 + 2 + 0.1, 10);
    expect(costOf(tokens, undefined)).toBe(0);
  });
});
