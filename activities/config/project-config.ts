import { createHash } from 'node:crypto';
import { canonicalJson } from '../../core/text/canonical-json.js';
import { pluginDigests } from '../plugins/load.js';
import { ConfigError } from './errors.js';
import { recordingFiles, type ConfigFilesRecord } from './files.js';
import { loadConfig } from './load.js';

/** The project part of a workspace's configuration as a disk holds it, and its id. */
export interface ProjectConfig {
  id: string;
  record: ConfigFilesRecord;
}

/**
 * What configures Loom in `directory` from the project's side, as the disk holds it now: every
 * config file and folder listing that loading reads (the folder and each above it), and the
 * digests of the project's plugin modules. A file that does not parse is recorded as it is (the
 * run that uses it says why it fails); what loading would read after it is not.
 */
export function readProjectConfig(directory: string, env: NodeJS.ProcessEnv): ProjectConfig {
  const recorder = recordingFiles();
  try {
    loadConfig(directory, env, recorder.files);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
  }
  const plugins = pluginDigests(directory, env, recorder.files);
  const record: ConfigFilesRecord = {
    ...recorder.record(),
    ...(Object.keys(plugins).length ? { plugins } : {}),
  };
  return { id: projectConfigId(record), record };
}

/** `cfg_` and the start of the SHA-256 of the files, folders and plugin digests: equal content, equal id. */
export function projectConfigId(record: ConfigFilesRecord): string {
  const { files, folders, plugins } = record;
  const hash = createHash('sha256').update(canonicalJson({ files, folders, plugins: plugins ?? {} }));
  return `cfg_${hash.digest('hex').slice(0, 24)}`;
}

/** The paths whose text, listing or code differ between two records: changed, added or removed, sorted. */
export function changedConfigPaths(before: ConfigFilesRecord, after: ConfigFilesRecord): string[] {
  const changed = new Set<string>();
  const compare = (a: Record<string, unknown>, b: Record<string, unknown>, folder = false) => {
    for (const path of new Set([...Object.keys(a), ...Object.keys(b)]))
      if (canonicalJson(a[path]) !== canonicalJson(b[path])) changed.add(folder ? `${path}/` : path);
  };
  compare(before.files, after.files);
  compare(before.plugins ?? {}, after.plugins ?? {});
  compare(before.folders, after.folders, true);
  // A folder's listing changes with every file added to it: name the files when they are known.
  for (const path of [...changed])
    if (path.endsWith('/') && [...changed].some((other) => other !== path && other.startsWith(path)))
      changed.delete(path);
  return [...changed].sort();
}
