import type { ProviderConfig } from '../../core/config/config.js';
import { ConfigError } from '../config/load.js';

/**
 * How long a model answer may stay silent, and where that limit came from, so an error can name
 * the setting to change. `ms` undefined: no limit.
 */
export interface SilenceLimit {
  ms: number | undefined;
  source: string;
}

export interface StreamLimits {
  /** From sending the request to the answer's first byte. */
  firstByte: SilenceLimit;
  /** Between two reads of the answer once it has started. */
  idle: SilenceLimit;
}

/**
 * 60 s without a byte mid-answer: a live stream sends tokens (or keep-alive comments) every few
 * seconds, so a minute of silence is a dead connection, not a slow model.
 */
export const DEFAULT_IDLE_MS = 60_000;
/**
 * 300 s before the first byte: a local server (Ollama, llama.cpp, vLLM on a small GPU) reads a long
 * prompt before it writes anything, which takes minutes at 100k tokens, and a reasoning model on
 * chat completions sends nothing while it thinks. 300 s is also OpenCode's default request and
 * header timeout, and still a third of the model activity's 15-minute limit.
 */
export const DEFAULT_FIRST_BYTE_MS = 300_000;

export const IDLE_ENV = 'LOOM_MODEL_IDLE_TIMEOUT_MS';
export const FIRST_BYTE_ENV = 'LOOM_MODEL_FIRST_BYTE_TIMEOUT_MS';

/**
 * The limits for one provider: its `options.chunkTimeout` / `options.firstChunkTimeout` in the
 * config, else the environment's default for every provider, else Loom's default. `false` in the
 * config, or 0 in the environment, turns a limit off.
 */
export function streamLimits(
  providerID: string,
  options: ProviderConfig['options'],
  env: NodeJS.ProcessEnv,
): StreamLimits {
  return {
    firstByte: limit(
      options?.firstChunkTimeout,
      `provider.${providerID}.options.firstChunkTimeout`,
      env,
      FIRST_BYTE_ENV,
      DEFAULT_FIRST_BYTE_MS,
    ),
    idle: limit(options?.chunkTimeout, `provider.${providerID}.options.chunkTimeout`, env, IDLE_ENV, DEFAULT_IDLE_MS),
  };
}

function limit(
  configured: number | false | undefined,
  key: string,
  env: NodeJS.ProcessEnv,
  variable: string,
  fallback: number,
): SilenceLimit {
  if (configured !== undefined) return { ms: configured === false ? undefined : configured, source: key };
  const raw = env[variable]?.trim();
  if (raw) {
    const ms = Number(raw);
    if (!Number.isInteger(ms) || ms < 0) {
      throw new ConfigError(`${variable}=${JSON.stringify(raw)}: expected whole milliseconds (0 turns the limit off)`);
    }
    return { ms: ms === 0 ? undefined : ms, source: variable };
  }
  return { ms: fallback, source: `${key} (default)` };
}
