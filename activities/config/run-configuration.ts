import type { LoomConfig } from '../../core/config/config.js';
import type { ConfigTrustRecords } from '../store/config-trust.js';
import type { WorkspaceConfigRecords } from '../store/workspace-configs.js';
import { ConfigError } from './errors.js';
import { recordedFiles, type ConfigFilesRecord } from './files.js';
import { loadConfig } from './load.js';
import { projectConfigId, readProjectConfig } from './project-config.js';
import { workspaceConfig } from './workspace-config.js';

/** What a run's host activity works with: the run's configuration, never the project's files as they are now. */
export interface RunConfiguration {
  config: LoomConfig;
  /** The project's config files it comes from (with its plugins' digests). */
  project: ConfigFilesRecord;
  /** Their id (`projectConfigId`): a disk that no longer matches it changed since the run started. */
  projectId: string;
}

const ids = new Map<string, string>();
const IDS_KEPT = 64;

/**
 * The configuration a run started with (its workspace config record, `workspaceConfigId`); a global
 * config file broken since fails the call, as it fails the run's model calls. A run of Loom 0.3.0
 * or before names none: it gets the config files a person trusts for the directory (the disk's
 * before any run there), and an empty configuration when they no longer load, as it did.
 */
export async function runConfiguration(
  store: WorkspaceConfigRecords & ConfigTrustRecords,
  env: NodeJS.ProcessEnv,
  input: { directory: string; workspaceConfigId?: string },
): Promise<RunConfiguration> {
  if (input.workspaceConfigId) {
    const { config, project } = await workspaceConfig(store, env, {
      directory: input.directory,
      workspaceConfigId: input.workspaceConfigId,
    });
    let projectId = ids.get(input.workspaceConfigId);
    if (!projectId) {
      projectId = projectConfigId(project);
      if (ids.size >= IDS_KEPT) ids.delete(ids.keys().next().value!);
      ids.set(input.workspaceConfigId, projectId);
    }
    return { config, project, projectId };
  }
  const project = (await store.configTrust(input.directory))?.trusted ?? readProjectConfig(input.directory, env).record;
  return { config: loadedOrEmpty(input.directory, env, project), project, projectId: projectConfigId(project) };
}

function loadedOrEmpty(directory: string, env: NodeJS.ProcessEnv, project: ConfigFilesRecord): LoomConfig {
  try {
    return loadConfig(directory, env, recordedFiles(project));
  } catch (error) {
    if (error instanceof ConfigError) return {};
    throw error;
  }
}
