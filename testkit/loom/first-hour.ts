import { createLoomTestEnv, type LoomTestEnv } from './loom-env.js';
import { runLoom } from './run-loom.js';

// What first-hour.test.ts and first-hour-no-worker.test.ts share: a new user's shell and project.

const PROVIDER_KEYS = [
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'GOOGLE_GENERATIVE_AI_API_KEY',
  'GEMINI_API_KEY',
  'OPENROUTER_API_KEY',
  'LOOM_MODEL',
];

/** A project whose bash calls ask first, on a scripted server that also speaks Anthropic's protocol. */
export function createFirstHourEnv(): Promise<LoomTestEnv> {
  return createLoomTestEnv({
    config: { permission: { bash: { '*': 'ask' } } },
    // Anthropic's protocol on the scripted server, with no key in the configuration: only the environment has one.
    providers: (url) => ({ anthropic: { options: { baseURL: url } } }),
  });
}

/** The test environment without any provider key or default model: a shell as a new user has it. */
export function bareEnv(env: LoomTestEnv, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const copy: NodeJS.ProcessEnv = { ...env.env, NO_COLOR: '1', LOOM_MODEL_RETRY_INITIAL_MS: '100' };
  for (const name of PROVIDER_KEYS) delete copy[name];
  return { ...copy, ...extra };
}

/** `loom` in that shell, in the project. */
export const newUserLoom = (env: LoomTestEnv, args: string[], extra: NodeJS.ProcessEnv = {}) =>
  runLoom(args, { env: bareEnv(env, extra), cwd: env.project });
