/**
 * Token counts of a model call, a run or a session. Kept apart from the zod schemas of
 * `message.ts`: workflows add tokens up, and every module a workflow imports is evaluated again
 * for each workflow (see `core/tool-call/spec.ts`'s `defineTool`).
 */
export interface Tokens {
  input: number;
  output: number;
  reasoning: number;
  cache: { read: number; write: number };
}

export const zeroTokens = (): Tokens => ({ input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } });

export function addTokens(a: Tokens, b: Tokens): Tokens {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    reasoning: a.reasoning + b.reasoning,
    cache: { read: a.cache.read + b.cache.read, write: a.cache.write + b.cache.write },
  };
}

/**
 * All tokens a call used, as `loom tree`, budgets and providers' tokens-per-minute limits count them:
 * input, output and cache reads and writes.
 */
export function totalTokens(tokens: Tokens): number {
  return tokens.input + tokens.output + tokens.cache.read + tokens.cache.write;
}
