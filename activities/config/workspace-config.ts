import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson } from '../../core/text/canonical-json.js';
import type { LoomConfig } from '../../core/config/config.js';
import type { McpToolInfo } from '../../core/tool-call/mcp.js';
import type { SkillInfo } from '../../core/tools/skill.js';
import type { WorkspaceConfigRecords } from '../store/workspace-configs.js';
import { ConfigError } from './errors.js';
import { recordedFiles, type ConfigFilesRecord, type RulesFile, type WorkspaceConfigRecord } from './files.js';
import { configLayers, loadConfig } from './load.js';
import { projectEntries } from './project-entries.js';
import { readProjectConfig } from './project-config.js';
import { discoverSkills } from './skills.js';
import { findRules, type RulesUrl } from './rules.js';

export { WorkspaceConfigRecord } from './files.js';

/** Records never change (their id is their content's hash): a worker keeps the last few it read. */
const CACHE_LIMIT = 32;
const cache = new Map<string, WorkspaceConfigRecord>();

/**
 * The configuration of a run from `project`, the project's config files it works with (see
 * trust.ts; the disk's as they are by default), and what the run's model calls need of the workspace: loading `record` later,
 * anywhere, gives the same project layers. Texts are kept raw, so `{env:…}` secrets are filled in
 * by the worker that uses them and never stored. The skills found here (global ones too: the host
 * runs the `skill` tool) travel as a list; `skillProblems` are the skill files skipped, for the
 * caller to report.
 */
export function recordWorkspaceConfig(
  directory: string,
  env: NodeJS.ProcessEnv,
  project: ConfigFilesRecord = readProjectConfig(directory, env).record,
): {
  config: LoomConfig;
  record: WorkspaceConfigRecord;
  skillProblems: ConfigError[];
  ruleProblems: string[];
  /** The `instructions` URLs, for the caller to fetch and add to `record.rules`. */
  ruleUrls: RulesUrl[];
} {
  const config = loadConfig(directory, env, recordedFiles(project));
  const { skills, problems } = discoverSkills(directory, env);
  const entries = projectEntries(directory);
  const layers = configLayers(directory, env, { project: recordedFiles(project), markdown: false });
  const { rules, urls: ruleUrls, problems: ruleProblems } = findRules(directory, env, layers);
  const record: WorkspaceConfigRecord = {
    ...project,
    git: existsSync(join(directory, '.git')),
    ...(skills.length ? { skills } : {}),
    ...(entries.length ? { entries } : {}),
    ...(rules.length ? { rules } : {}),
  };
  return { config, record, skillProblems: problems, ruleProblems, ruleUrls };
}

/** `wsc_` and the start of the SHA-256 of the record's canonical JSON: one project, one id. */
export function workspaceConfigId(record: WorkspaceConfigRecord): string {
  return `wsc_${createHash('sha256').update(canonicalJson(record)).digest('hex').slice(0, 24)}`;
}

/** The configuration and git flag a model-side activity works with. */
export interface WorkspaceConfig {
  config: LoomConfig;
  /** The project's config files it was loaded from (and its plugins' digests). */
  project: ConfigFilesRecord;
  /** Whether the directory is a git repository. */
  git: boolean;
  /** The skills the `skill` tool offers; absent when there are none. */
  skills?: SkillInfo[];
  /** The tools of the project's MCP servers, as its host listed them; absent when there are none. */
  mcpTools?: McpToolInfo[];
  /** The project folder's entries when the run started, as its host listed them (folders end in `/`). */
  entries?: string[];
  /** The rules files every agent of the run reads in its system prompt. */
  rules?: RulesFile[];
}

/**
 * The configuration for a model-side activity: this worker's global folder, the record's project
 * layers and `LOOM_CONFIG_CONTENT`, wherever it runs.
 */
export async function workspaceConfig(
  store: WorkspaceConfigRecords,
  env: NodeJS.ProcessEnv,
  input: { directory: string; workspaceConfigId: string },
): Promise<WorkspaceConfig> {
  const record = await readRecord(store, input.workspaceConfigId);
  const { files, folders, plugins } = record;
  return {
    config: loadConfig(input.directory, env, recordedFiles(record)),
    project: { files, folders, ...(plugins ? { plugins } : {}) },
    git: record.git,
    ...(record.skills ? { skills: record.skills } : {}),
    ...(record.mcpTools ? { mcpTools: record.mcpTools } : {}),
    ...(record.entries ? { entries: record.entries } : {}),
    ...(record.rules ? { rules: record.rules } : {}),
  };
}

async function readRecord(store: WorkspaceConfigRecords, id: string): Promise<WorkspaceConfigRecord> {
  const cached = cache.get(id);
  if (cached) return cached;
  const record = await store.getWorkspaceConfig(id);
  if (!record)
    throw new ConfigError(
      `Workspace configuration ${id} is not in the session store (it is written when a run starts on the workspace's host)`,
    );
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(id, record);
  return record;
}
