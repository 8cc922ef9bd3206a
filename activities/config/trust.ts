import type { ConfigChange, ConfigTrust, ConfigTrustRecords } from '../store/config-trust.js';
import type { ConfigFilesRecord } from './files.js';
import { changedConfigPaths, readProjectConfig, type ProjectConfig } from './project-config.js';

/**
 * A change to the rules takes effect only when a person says so. Loom keeps, per session directory,
 * the project's config files as a person last ran with them or confirmed them (`trusted`). A run
 * started by a person takes the files as they are, unless they changed during an agent's work since
 * (`pending`): then, as every run an agent starts (a subagent, a batch task) whose files differ, it
 * uses the trusted ones and the change waits until a person confirms it (`loom config trust`, the
 * prompt of `loom run`, the web view). The first run in a directory trusts what it finds.
 */

/** The config files a run works with, and the change it leaves out. */
export interface RunProjectConfig {
  record: ConfigFilesRecord;
  /** Files changed during an agent's work and not confirmed yet: the run uses the trusted ones instead. */
  unconfirmed?: ConfigChange;
}

/** Who starts a run: a person (from the CLI, the web view, an editor), or an agent's work. */
export interface RunStarter {
  byPerson: boolean;
  sessionId: string;
}

/** The config files for a run starting in `directory` on its host (see the module's comment). */
export async function projectConfigForRun(
  store: ConfigTrustRecords,
  directory: string,
  env: NodeJS.ProcessEnv,
  starter: RunStarter,
): Promise<RunProjectConfig> {
  const current = readProjectConfig(directory, env);
  const trust = await store.configTrust(directory);
  const now = Date.now();
  if (!trust) {
    await store.trustConfig(directory, { ...current, time: now }, 'first');
    return { record: current.record };
  }
  if (current.id === trust.trustedId) {
    // The change that waited was undone: nothing waits any more.
    if (trust.pending) await store.trustConfig(directory, { ...current, time: trust.time }, 'always');
    return { record: current.record };
  }
  if (starter.byPerson && !agentChangeRemains(trust, current)) {
    // The person's own edit between runs: theirs to make. Not if an agent's change came in meanwhile.
    const when = trust.pending ? 'always' : 'unless-pending';
    if (await store.trustConfig(directory, { ...current, time: now }, when)) return { record: current.record };
  }
  const unconfirmed = await markChanged(store, directory, trust, current, starter.sessionId);
  return { record: trust.trusted, unconfirmed };
}

/**
 * After an agent's tool call on the workspace's host: if the project's config files now differ from
 * what the run started with (`runConfigId`) and from what a person trusts, the change waits for a
 * person. Returns the change when one is waiting.
 */
export async function noticeConfigChange(
  store: ConfigTrustRecords,
  directory: string,
  env: NodeJS.ProcessEnv,
  options: { sessionId: string; runConfigId?: string },
): Promise<ConfigChange | undefined> {
  const current = readProjectConfig(directory, env);
  if (current.id === options.runConfigId) return undefined;
  const trust = await store.configTrust(directory);
  if (!trust || current.id === trust.trustedId) return undefined;
  return markChanged(store, directory, trust, current, options.sessionId);
}

/**
 * Whether a file an agent's work changed still differs from what a person trusts. One put back
 * since (by the person, or a revert) leaves only the person's own edits, if any.
 */
function agentChangeRemains(trust: ConfigTrust, current: ProjectConfig): boolean {
  if (!trust.pending) return false;
  const changed = new Set(changedConfigPaths(trust.trusted, current.record));
  return trust.pending.files.some((path) => changed.has(path));
}

/** Records (or keeps) the change waiting for a person: the files that differ from the trusted ones. */
async function markChanged(
  store: ConfigTrustRecords,
  directory: string,
  trust: ConfigTrust,
  current: ProjectConfig,
  sessionId: string,
): Promise<ConfigChange> {
  if (trust.pending?.id === current.id) return trust.pending;
  const change: ConfigChange = {
    id: current.id,
    files: changedConfigPaths(trust.trusted, current.record),
    // The session that first saw the change keeps the credit: a later run only noticed it again.
    sessionId: trust.pending?.sessionId ?? sessionId,
    time: Date.now(),
  };
  await store.markConfigChanged(directory, trust.trustedId, change);
  return change;
}

/** Where a directory's configuration stands, for a person: what is trusted, what waits, what the disk holds. */
export interface ConfigStanding {
  directory: string;
  current: ProjectConfig;
  trust?: ConfigTrust;
  /** The files that differ from the trusted ones, when they do. */
  changed: string[];
  /** Whether the next run a person starts uses the disk's files as they are. */
  usedAsIs: boolean;
}

export async function configStanding(
  store: ConfigTrustRecords,
  directory: string,
  env: NodeJS.ProcessEnv,
): Promise<ConfigStanding> {
  const current = readProjectConfig(directory, env);
  const trust = await store.configTrust(directory);
  const changed = trust && trust.trustedId !== current.id ? changedConfigPaths(trust.trusted, current.record) : [];
  return { directory, current, trust, changed, usedAsIs: !trust || !agentChangeRemains(trust, current) };
}

/** The files changed again between what a person was shown and their confirmation. */
export class ConfigChangedAgainError extends Error {
  override name = 'ConfigChangedAgainError';
}

/**
 * A person confirms the directory's config files as the disk holds them now; with `expectedId`,
 * only if they are still the files the person was shown (`ProjectConfig.id`).
 */
export async function trustProjectConfig(
  store: ConfigTrustRecords,
  directory: string,
  env: NodeJS.ProcessEnv,
  expectedId?: string,
): Promise<ProjectConfig> {
  const current = readProjectConfig(directory, env);
  if (expectedId !== undefined && current.id !== expectedId)
    throw new ConfigChangedAgainError(
      `The config files of ${directory} changed again since they were shown (${expectedId}, now ${current.id}): review them again before you trust them.`,
    );
  await store.trustConfig(directory, { ...current, time: Date.now() }, 'always');
  return current;
}

/**
 * The project's config files as a person trusts them, for code that runs outside any run (plugins'
 * `event` and `permission.ask` hooks): undefined before the first run in the directory.
 */
export async function trustedProjectFiles(
  store: ConfigTrustRecords,
  directory: string,
): Promise<ConfigFilesRecord | undefined> {
  return (await store.configTrust(directory))?.trusted;
}
