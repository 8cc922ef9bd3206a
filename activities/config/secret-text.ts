import { looksSecret } from '../tools/tool-env.js';
import { ConfigError } from './errors.js';

/** The settings of an agent or a command whose text a model reads (its prompt, the task tool's list of agents). */
const MODEL_TEXT = {
  agent: ['description', 'prompt'],
  mode: ['description', 'prompt'],
  command: ['description', 'template'],
};

const ENV_REFERENCE = /\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Refuses a config whose text for a model names a secret variable (`"description": "… {env:API_TOKEN}"`):
 * substituted, it would go to the model's provider with every request, and to anything a
 * prompt-injected model is told to repeat it to. `raw` is the file's value before `{env:…}` is
 * filled in; `at` prefixes its keys (a markdown agent's frontmatter is `agent.<name>`).
 */
export function refuseSecretsInModelText(
  raw: unknown,
  label: string,
  at?: { kind: keyof typeof MODEL_TEXT; name: string },
): void {
  if (at) return checkEntry(raw, MODEL_TEXT[at.kind], `${at.kind}.${at.name}`, label);
  if (raw === null || typeof raw !== 'object') return;
  for (const [kind, keys] of Object.entries(MODEL_TEXT)) {
    const entries = (raw as Record<string, unknown>)[kind];
    if (entries === null || typeof entries !== 'object') continue;
    for (const [name, entry] of Object.entries(entries)) checkEntry(entry, keys, `${kind}.${name}`, label);
  }
}

function checkEntry(entry: unknown, keys: string[], path: string, label: string): void {
  if (entry === null || typeof entry !== 'object') return;
  for (const key of keys) {
    const text = (entry as Record<string, unknown>)[key];
    if (typeof text !== 'string') continue;
    for (const [, name] of text.matchAll(ENV_REFERENCE))
      if (looksSecret(name))
        throw new ConfigError(
          `${label}: ${path}.${key} names {env:${name}}, a secret by its name. Loom does not put secrets into text a model reads; ` +
            'leave it out (a tool that needs it gets it through shell_env).',
        );
  }
}
