import { homedir } from 'node:os';
import { resolveAgents } from '../../core/agents/resolve.js';
import type { AgentInfo } from '../../core/agents/agent.js';
import type { LoomConfig } from '../../core/config/config.js';
import { DEFAULT_MODEL_KEYS, defaultModelFromKeys } from '../model/known-providers.js';
import { toolOutputDir } from '../process/paths.js';

// Apart from the run-config activities so that the CLI and the terminal UI read a project's agents
// without loading the activities' Temporal imports.

/** No model anywhere; `nameOne` is how the caller names one (a CLI flag, a request's field). */
export function noModelMessage(nameOne = 'pass --model provider/model'): string {
  return `No model: ${nameOne}, set "model" in loom.json or on the agent, set LOOM_MODEL, or set a provider's key (${DEFAULT_MODEL_KEYS.join(', ')}).`;
}

export const NO_MODEL = noModelMessage();

/** The model when neither the run nor its agent names one: loom.json's, LOOM_MODEL, else the first provider key set. */
export function configuredModel(config: LoomConfig, env: NodeJS.ProcessEnv): string | undefined {
  return config.model ?? env.LOOM_MODEL ?? defaultModelFromKeys(env);
}

/** Loads the project's agents for a run: the same resolution for the worker and the CLI. */
export function projectAgents(config: LoomConfig, dataDir: string): AgentInfo[] {
  return resolveAgents(config, { home: homedir(), toolOutputDir: toolOutputDir(dataDir) });
}
