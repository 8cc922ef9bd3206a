import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson } from '../../core/canonical-json.js';
import type { LoomConfig } from '../../core/config.js';
import type { McpToolInfo } from '../../core/mcp.js';
import type { SkillInfo } from '../../core/tools/skill.js';
import type { WorkspaceSnapshots } from '../store/workspace-snapshots.js';
import { ConfigError } from './errors.js';
import { snapshotFiles, type ConfigFilesSnapshot, type WorkspaceSnapshot } from './files.js';
import { loadConfig } from './load.js';
import { projectEntries } from './project-entries.js';
import { readProjectConfig } from './project-config.js';
import { discoverSkills } from './skills.js';

export { WorkspaceSnapshot } from './files.js';

/** Snapshots never change (their id is their content's hash): a worker keeps the last few it read. */
const CACHE_LIMIT = 32;
const cache = new Map<string, WorkspaceSnapshot>();

/**
 * The configuration of a run from `project`, the project's config files it works with (see
 * trust.ts; the disk's as they are by default), and what the run's model calls need of the workspace: loading `snapshot` later,
 * anywhere, gives the same project layers. Texts are kept raw, so `{env:…}` secrets are filled in
 * by the worker that uses them and never stored. The skills found here (global ones too: the host
 * runs the `skill` tool) travel as a list; `skillProblems` are the skill files skipped, for the
 * caller to report.
 */
export function takeWorkspaceSnapshot(
  directory: string,
  env: NodeJS.ProcessEnv,
  project: ConfigFilesSnapshot = readProjectConfig(directory, env).snapshot,
): { config: LoomConfig; snapshot: WorkspaceSnapshot; skillProblems: ConfigError[] } {
  const config = loadConfig(directory, env, snapshotFiles(project));
  const { skills, problems } = discoverSkills(directory, env);
  const entries = projectEntries(directory);
  const snapshot: WorkspaceSnapshot = {
    ...project,
    git: existsSync(join(directory, '.git')),
    ...(skills.length ? { skills } : {}),
    ...(entries.length ? { entries } : {}),
  };
  return { config, snapshot, skillProblems: problems };
}

/** `wsc_` and the start of the SHA-256 of the snapshot's canonical JSON: one project, one id. */
export function workspaceSnapshotId(snapshot: WorkspaceSnapshot): string {
  return `wsc_${createHash('sha256').update(canonicalJson(snapshot)).digest('hex').slice(0, 24)}`;
}

/** The configuration and git flag a model-side activity works with. */
export interface WorkspaceConfig {
  config: LoomConfig;
  /** The project's config files it was loaded from (and its plugins' digests). */
  project: ConfigFilesSnapshot;
  /** Whether the directory is a git repository. */
  git: boolean;
  /** The skills the `skill` tool offers; absent when there are none. */
  skills?: SkillInfo[];
  /** The tools of the project's MCP servers, as its host listed them; absent when there are none. */
  mcpTools?: McpToolInfo[];
  /** The project folder's entries when the run started, as its host listed them (folders end in `/`). */
  entries?: string[];
}

/**
 * The configuration for a model-side activity: this worker's global folder, the snapshot's project
 * layers and `LOOM_CONFIG_CONTENT`, wherever it runs.
 */
export async function workspaceConfig(
  store: WorkspaceSnapshots,
  env: NodeJS.ProcessEnv,
  input: { directory: string; workspaceConfigId: string },
): Promise<WorkspaceConfig> {
  const snapshot = await readSnapshot(store, input.workspaceConfigId);
  const { files, folders, plugins } = snapshot;
  return {
    config: loadConfig(input.directory, env, snapshotFiles(snapshot)),
    project: { files, folders, ...(plugins ? { plugins } : {}) },
    git: snapshot.git,
    ...(snapshot.skills ? { skills: snapshot.skills } : {}),
    ...(snapshot.mcpTools ? { mcpTools: snapshot.mcpTools } : {}),
    ...(snapshot.entries ? { entries: snapshot.entries } : {}),
  };
}

async function readSnapshot(store: WorkspaceSnapshots, id: string): Promise<WorkspaceSnapshot> {
  const cached = cache.get(id);
  if (cached) return cached;
  const snapshot = await store.workspaceSnapshot(id);
  if (!snapshot)
    throw new ConfigError(
      `Workspace configuration ${id} is not in the session store (it is written when a run starts on the workspace's host)`,
    );
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(id, snapshot);
  return snapshot;
}
