import { parse as parseJsonc } from 'jsonc-parser';
import { looksSecret } from '../tools/shell/tool-env.js';
import { ConfigError } from './errors.js';

/** The settings of an agent or a command whose text a model reads (its prompt, the task tool's list of agents). */
const MODEL_TEXT = {
  agent: ['description', 'prompt'],
  mode: ['description', 'prompt'],
  command: ['description', 'template'],
};

const ENV_REFERENCE = /\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** JSON texts found to name no secret in model text, so each file is parsed for it once. */
const checked = new Set<string>();
const CHECKED_KEPT = 256;

/**
 * Refuses a config whose text for a model names a secret variable (`"description": "… {env:API_TOKEN}"`):
 * substituted, it would go to the model's provider with every request, and to anything a
 * prompt-injected model is told to repeat it to. `raw` is a JSON file's text, or a markdown file's
 * frontmatter as parsed before `{env:…}` is filled in, with `at` naming its entry (`agent.<name>`).
 */
export function refuseSecretsInModelText(
  raw: unknown,
  label: string,
  at?: { kind: keyof typeof MODEL_TEXT; name: string },
): void {
  if (at) return checkEntry(raw, MODEL_TEXT[at.kind], `${at.kind}.${at.name}`, label);
  if (typeof raw === 'string') {
    if (checked.has(raw)) return;
    refuseSecretsInModelText(parseJsonc(raw, [], { allowTrailingComma: true }), label);
    if (checked.size >= CHECKED_KEPT) checked.delete(checked.values().next().value!);
    checked.add(raw);
    return;
  }
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
