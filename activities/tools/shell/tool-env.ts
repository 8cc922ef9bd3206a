import type { LoomConfig } from '../../../core/config/config.js';

/**
 * Loom's own secrets by name: the store's connection string, the password a PostgreSQL client
 * reads, the server's token, the Temporal client key's PEM (which would let a tool act on every run
 * of the namespace), and the headers sent to the tracing collector (a hosted backend's key).
 */
const LOOM_SECRETS = new Set([
  'LOOM_STORE_URL',
  'PGPASSWORD',
  'LOOM_SERVER_TOKEN',
  'TEMPORAL_TLS_CLIENT_KEY_DATA',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
]);
/**
 * Prefixes of names that are secret as a whole:
 * `TEMPORAL_GRPC_META_AUTHORIZATION` and its kind are headers sent to
 * Temporal.
 */
const SECRET_PREFIXES = ['TEMPORAL_GRPC_META_'];
/** Words (between `_`) that make a name secret wherever they stand: `AWS_BEARER_TOKEN_BEDROCK`. */
const SECRET_WORDS = new Set(['TOKEN', 'SECRET', 'PASSWORD', 'PASSWD']);
/** Words that make a name secret as its last word: `OPENAI_API_KEY`, `DB_PASS`. */
const SECRET_LAST_WORDS = new Set(['KEY', 'APIKEY', 'PASS']);
/** Last words that name where a secret is kept, not the secret: `NPM_TOKEN_FILE`, `PASSWORD_STORE_DIR`. */
const LOCATION_WORDS = new Set(['FILE', 'PATH', 'DIR']);
/**
 * Configured secrets shorter than this are placeholders (`"apiKey": "ollama"`), and matching them
 * inside other values would hide innocent variables (`NODE_ENV=test`).
 */
const MIN_SECRET_LENGTH = 8;
/** Provider options and headers that carry credentials: `apiKey`, `secretAccessKey`, `Authorization`. */
const SECRET_OPTION = /(key|token|secret|password)$/i;
const SECRET_HEADER = /auth|key|token|secret/i;

/** What a configuration asks of tool environments, worked out once per loaded config. */
interface Rules {
  /** Values of configured credentials: a variable holding one is hidden, whatever its name. */
  secrets: string[];
  inherit: Set<string>;
  unset: string[];
  set: Record<string, string>;
}

const rulesByConfig = new WeakMap<LoomConfig, Rules>();

/**
 * The environment of a process Loom starts for a tool to run the project's commands (bash,
 * `` !`cmd` `` in commands, local MCP servers): the worker's environment without credentials, then
 * `shell_env` applied. Hidden are:
 * - variables whose name looks secret (`looksSecret`);
 * - `LOOM_STORE_URL`, `PGPASSWORD`, `LOOM_SERVER_TOKEN`, `TEMPORAL_TLS_CLIENT_KEY_DATA`, the
 *   `TEMPORAL_GRPC_META_*` headers and the tracing exporter's headers;
 * - variables whose value holds a configured provider credential or the store's connection string
 *   (this catches the variables `{env:NAME}` read them from).
 * Names listed in `shell_env.inherit` are kept all the same; `shell_env` keys then set (string) or
 * remove (`null`) variables. Everything else (PATH, HOME, LANG, TERM, …) passes unchanged.
 */
export function toolEnvironment(env: NodeJS.ProcessEnv, config: LoomConfig): NodeJS.ProcessEnv {
  const rules = rulesOf(config);
  const result = withoutCredentials(env, config, rules.inherit);
  for (const name of rules.unset) delete result[name];
  return Object.assign(result, rules.set);
}

/**
 * The worker's environment without its credentials, hidden as `toolEnvironment` hides them, but
 * without `shell_env`: for the programs Loom itself runs unconfined for a tool (ripgrep, and pip
 * installing it), which the project's configuration must not point at programs of its own
 * (`PATH`, `LOOM_RIPGREP`, `LD_PRELOAD`, `PYTHONPATH`, …). `keep` names variables kept all the same.
 */
export function withoutCredentials(
  env: NodeJS.ProcessEnv,
  config: LoomConfig,
  keep: ReadonlySet<string> = new Set(),
): NodeJS.ProcessEnv {
  const store = env.LOOM_STORE_URL;
  const secrets = rulesOf(config).secrets;
  const hidden = store && store.length >= MIN_SECRET_LENGTH ? [...secrets, store] : secrets;
  const result: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (keep.has(name) || !(looksSecret(name) || hidden.some((secret) => value.includes(secret)))) result[name] = value;
  }
  return result;
}

/**
 * Whether a variable's name says it holds a secret (case-insensitive, words split at `_`): a word
 * TOKEN, SECRET, PASSWORD or PASSWD anywhere, or a last word KEY, APIKEY or PASS; but not a name
 * whose last word is FILE, PATH or DIR, which says where a secret is.
 */
export function looksSecret(name: string): boolean {
  if (LOOM_SECRETS.has(name) || SECRET_PREFIXES.some((prefix) => name.startsWith(prefix))) return true;
  const words = name.toUpperCase().split('_');
  const last = words[words.length - 1];
  if (LOCATION_WORDS.has(last)) return false;
  return SECRET_LAST_WORDS.has(last) || words.some((word) => SECRET_WORDS.has(word));
}

function rulesOf(config: LoomConfig): Rules {
  let rules = rulesByConfig.get(config);
  if (!rules) {
    const { inherit = [], ...vars } = config.shell_env ?? {};
    rules = { secrets: configuredSecrets(config), inherit: new Set(inherit), unset: [], set: {} };
    for (const [name, value] of Object.entries(vars)) {
      if (typeof value === 'string') rules.set[name] = value;
      else if (value === null) rules.unset.push(name);
    }
    rulesByConfig.set(config, rules);
  }
  return rules;
}

/** The credentials in `provider.*.options`: secret-named options, and auth headers (also without their scheme). */
function configuredSecrets(config: LoomConfig): string[] {
  const secrets: string[] = [];
  for (const provider of Object.values(config.provider ?? {})) {
    const options: Record<string, unknown> = provider.options ?? {};
    for (const [key, value] of Object.entries(options)) {
      if (typeof value === 'string' && SECRET_OPTION.test(key)) secrets.push(value);
    }
    for (const [name, value] of Object.entries(provider.options?.headers ?? {})) {
      if (SECRET_HEADER.test(name)) secrets.push(value, value.trim().split(/\s+/).at(-1) ?? '');
    }
  }
  return [...new Set(secrets)].filter((secret) => secret.length >= MIN_SECRET_LENGTH);
}
