import { describe, expect, it } from 'vitest';
import type { LoomConfig } from '../../core/config/config.js';
import { ProviderError, resolveModel, type ResolvedModel } from '../../activities/model/provider.js';

const LOCAL: LoomConfig = { provider: { local: { options: { baseURL: 'http://127.0.0.1:1234/v1' } } } };

/** The provider id and model id the AI SDK reports for a resolved model. */
function describeModel(resolved: ResolvedModel): { provider: string; modelId: string } {
  return { provider: resolved.model.provider, modelId: resolved.model.modelId };
}

describe('resolveModel', () => {
  it('refuses an unknown provider, listing the known and configured ones', async () => {
    const resolving = resolveModel('mystery/m1', LOCAL, {});
    await expect(resolving).rejects.toThrow(ProviderError);
    await expect(resolveModel('mystery/m1', LOCAL, {})).rejects.toThrow(
      'Unknown provider "mystery" in model "mystery/m1". Known providers: openai, anthropic, google, openrouter, local.',
    );
  });

  it('refuses a malformed model id, showing the expected form', async () => {
    await expect(resolveModel('gpt-4o', {}, { OPENAI_API_KEY: 'sk-test' })).rejects.toThrow('expected provider/model');
  });

  it.each([
    [
      'openai/gpt-4o',
      'No API key for provider "openai": set OPENAI_API_KEY, or provider.openai.options.apiKey in loom.json.',
    ],
    [
      'anthropic/claude-sonnet-4-5',
      'No API key for provider "anthropic": set ANTHROPIC_API_KEY, or provider.anthropic.options.apiKey in loom.json.',
    ],
    ['google/gemini-2.5-pro', 'No API key for provider "google": set GOOGLE_GENERATIVE_AI_API_KEY or GEMINI_API_KEY'],
    ['openrouter/anthropic/claude-sonnet-4.5', 'No API key for provider "openrouter": set OPENROUTER_API_KEY'],
  ])('refuses %s without a key, naming the variable to set', async (model, message) => {
    await expect(resolveModel(model, {}, {})).rejects.toThrow(message);
  });

  it('refuses a configured provider without a base URL, pointing at its options rather than OPENAI_API_KEY', async () => {
    const resolving = resolveModel(
      'local/m',
      { provider: { local: { name: 'Local' } } },
      { OPENAI_API_KEY: 'sk-test' },
    );
    await expect(resolving).rejects.toThrow('No base URL for provider "local": set provider.local.options.baseURL');
  });

  it('refuses a package Loom does not support, listing the supported ones', async () => {
    const config: LoomConfig = { provider: { bedrock: { npm: '@ai-sdk/amazon-bedrock', options: { apiKey: 'k' } } } };
    await expect(resolveModel('bedrock/claude', config, {})).rejects.toThrow(
      'provider.bedrock.npm is "@ai-sdk/amazon-bedrock", which Loom does not support. Supported packages: @ai-sdk/openai, @ai-sdk/openai-compatible, @openrouter/ai-sdk-provider, @ai-sdk/anthropic, @ai-sdk/google.',
    );
  });

  it('says at once when a key holds a character HTTP cannot carry, such as a pasted "…"', async () => {
    await expect(resolveModel('openai/gpt-4o', {}, { OPENAI_API_KEY: 'sk-…' })).rejects.toThrow(
      'The API key of provider "openai" contains "…" (U+2026) at position 4, which HTTP headers cannot carry',
    );
    const config: LoomConfig = {
      provider: { local: { options: { baseURL: 'http://127.0.0.1:1/v1', headers: { 'x-team': 'é\u{1F600}' } } } },
    };
    await expect(resolveModel('local/m', config, {})).rejects.toThrow('provider.local.options.headers.x-team contains');
  });

  it('uses the OpenAI-compatible package for a configured server, keeping slashes in the model id and repairing text tool calls', async () => {
    const resolved = await resolveModel('local/qwen/2.5-coder', LOCAL, {});
    expect(describeModel(resolved)).toEqual({ provider: 'local.chat', modelId: 'qwen/2.5-coder' });
    expect(resolved).toMatchObject({ protocol: 'openai-compatible', optionsKey: 'local', toolCallRepair: true });
  });

  it('lets a model turn tool-call repair off, and its provider set the default', async () => {
    const config: LoomConfig = {
      provider: {
        local: {
          options: { baseURL: 'http://127.0.0.1:1234/v1', tool_call_repair: false },
          models: { big: { tool_call_repair: true, options: { top_k: 20 } } },
        },
      },
    };
    expect((await resolveModel('local/small', config, {})).toolCallRepair).toBe(false);
    expect(await resolveModel('local/big', config, {})).toMatchObject({ toolCallRepair: true, options: { top_k: 20 } });
  });

  it('uses the Responses API for openai with an API key, and Chat Completions at another address', async () => {
    expect(describeModel(await resolveModel('openai/gpt-4o', {}, { OPENAI_API_KEY: 'sk-test' }))).toEqual({
      provider: 'openai.responses',
      modelId: 'gpt-4o',
    });
    const env = { OPENAI_BASE_URL: 'http://127.0.0.1:1234/v1' };
    expect(describeModel(await resolveModel('openai/gpt-4o', {}, env)).provider).toBe('openai.chat');
    const config: LoomConfig = { provider: { openai: { options: { baseURL: 'http://127.0.0.1:1234/v1' } } } };
    expect(describeModel(await resolveModel('openai/gpt-4o', config, {})).provider).toBe('openai.chat');
  });

  it('resolves Anthropic, Google and OpenRouter from their usual variables', async () => {
    const env = { ANTHROPIC_API_KEY: 'a', GEMINI_API_KEY: 'g', OPENROUTER_API_KEY: 'o' };
    expect(await resolveModel('anthropic/claude-sonnet-4-5', {}, env)).toMatchObject({
      protocol: 'anthropic',
      optionsKey: 'anthropic',
      toolCallRepair: false,
    });
    expect(describeModel(await resolveModel('anthropic/claude-sonnet-4-5', {}, env)).provider).toBe(
      'anthropic.messages',
    );
    expect(await resolveModel('google/gemini-2.5-flash', {}, env)).toMatchObject({
      protocol: 'google',
      optionsKey: 'google',
    });
    const openrouter = await resolveModel('openrouter/anthropic/claude-sonnet-4.5', {}, env);
    expect(describeModel(openrouter)).toEqual({ provider: 'openrouter.chat', modelId: 'anthropic/claude-sonnet-4.5' });
    expect(openrouter).toMatchObject({
      protocol: 'openai-compatible',
      optionsKey: 'openrouter',
      toolCallRepair: false,
    });
  });

  it('takes a provider of its own with a named package, reading its key from the variables it lists', async () => {
    const config: LoomConfig = {
      provider: {
        work: { npm: '@ai-sdk/anthropic', env: ['WORK_CLAUDE_KEY'], options: { baseURL: 'http://127.0.0.1:1/v1' } },
      },
    };
    await expect(resolveModel('work/claude-opus-4-5', config, {})).rejects.toThrow(
      'set WORK_CLAUDE_KEY, or provider.work.options.apiKey',
    );
    expect((await resolveModel('work/claude-opus-4-5', config, { WORK_CLAUDE_KEY: 'k' })).protocol).toBe('anthropic');
  });

  it("gives OpenRouter's package its address when a provider of one's own names it without one", async () => {
    const config: LoomConfig = { provider: { team: { npm: '@openrouter/ai-sdk-provider', options: { apiKey: 'k' } } } };
    expect(await resolveModel('team/openai/gpt-4o', config, {})).toMatchObject({
      protocol: 'openai-compatible',
      optionsKey: 'team',
    });
  });
});

describe('resolveModel across calls', () => {
  /** A server that answers every chat request at once and notes the key each one carried. */
  async function keyNotingServer() {
    const { createServer } = await import('node:http');
    const keys: string[] = [];
    const server = createServer((request, response) => {
      keys.push(request.headers.authorization ?? '');
      request.resume();
      request.on('end', () => {
        response.setHeader('content-type', 'application/json');
        response.end(
          JSON.stringify({
            id: 'c',
            created: 0,
            model: 'm',
            choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    return { url: `http://127.0.0.1:${port}/v1`, keys, close: () => new Promise((resolve) => server.close(resolve)) };
  }

  it('gives each call the key the configuration holds now, however often the same model was made', async () => {
    const server = await keyNotingServer();
    try {
      const withKey = (apiKey: string): LoomConfig => ({
        provider: { local: { options: { baseURL: server.url, apiKey } } },
      });
      const ask = async (apiKey: string) => {
        const { model } = await resolveModel('local/m', withKey(apiKey), {});
        await model.doGenerate({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
      };
      await ask('first-key');
      await ask('first-key');
      await ask('second-key');
      expect(server.keys).toEqual(['Bearer first-key', 'Bearer first-key', 'Bearer second-key']);
    } finally {
      await server.close();
    }
  });
});
