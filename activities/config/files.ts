import { readdirSync, readFileSync, statSync } from 'node:fs';
import { z } from 'zod';
import { McpToolInfo } from '../../core/config/mcp-config.js';
import { SkillInfo } from '../../core/tools/skill.js';

/**
 * How config loading reads a project's folders. The disk on the workspace's host; elsewhere (a
 * model-only worker with no copy of the workspace) a record of what the host's disk held.
 */
export interface ConfigFiles {
  isFile(path: string): boolean;
  isDirectory(path: string): boolean;
  /** Entry names of a folder, in no particular order. */
  list(folder: string): string[];
  read(path: string): string;
}

/**
 * What a project's config traversal found: raw texts (before `{env:…}`) and folder listings, by
 * absolute path, and the SHA-256 of each plugin module of the project (code is not kept, only
 * which code was seen: a module that differs is not loaded).
 */
export const ConfigFilesRecord = z.object({
  files: z.record(z.string(), z.string()),
  folders: z.record(z.string(), z.array(z.string())),
  plugins: z.record(z.string(), z.string()).optional(),
});
export type ConfigFilesRecord = z.infer<typeof ConfigFilesRecord>;

/**
 * The project part of a workspace's configuration, taken on its host and kept in the session
 * store, so a worker without the workspace configures a model call as the host would. `git`:
 * whether the directory holds `.git` (the system prompt says so). `skills`: the skills the host
 * found (names and descriptions for the `skill` tool's description; absent when there are none).
 * `mcpTools`: the tools the project's MCP servers listed on the host (absent when there are none).
 */
/** A rules file (AGENTS.md, `instructions`) as a run's agents read it: where it came from and what it says. */
export const RulesFile = z.object({ source: z.string(), text: z.string() });
export type RulesFile = z.infer<typeof RulesFile>;

export const WorkspaceConfigRecord = ConfigFilesRecord.extend({
  git: z.boolean(),
  skills: z.array(SkillInfo).optional(),
  mcpTools: z.array(McpToolInfo).optional(),
  /** What the project folder held when the run started (folders end in `/`): a small model's prompt names them. */
  entries: z.array(z.string()).optional(),
  /** The rules files (AGENTS.md, `instructions`) as the host read them when the run started. */
  rules: z.array(RulesFile).optional(),
});
export type WorkspaceConfigRecord = z.infer<typeof WorkspaceConfigRecord>;

export const diskFiles: ConfigFiles = {
  isFile: (path) => statSync(path, { throwIfNoEntry: false })?.isFile() ?? false,
  isDirectory: (path) => statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false,
  list: (folder) => readdirSync(folder),
  read: (path) => readFileSync(path, 'utf8'),
};

/**
 * Reads through `inner` and remembers every file read and folder listed. A traversal that only
 * lists folders it found and reads files it found then sees the same through `recordedFiles`.
 */
export function recordingFiles(inner: ConfigFiles = diskFiles): {
  files: ConfigFiles;
  record(): ConfigFilesRecord;
} {
  const files = new Map<string, string>();
  const folders = new Map<string, string[]>();
  return {
    files: {
      isFile: (path) => inner.isFile(path),
      isDirectory: (path) => inner.isDirectory(path),
      list(folder) {
        const names = inner.list(folder);
        folders.set(folder, [...names].sort());
        return names;
      },
      read(path) {
        const text = inner.read(path);
        files.set(path, text);
        return text;
      },
    },
    record: () => ({ files: sortedRecord(files), folders: sortedRecord(folders) }),
  };
}

/**
 * The project as a record holds it. A folder exists when it was listed and a file when it was
 * read; anything else the traversal probed was absent, or not needed (a `.txt` beside the agents).
 */
export function recordedFiles(record: ConfigFilesRecord): ConfigFiles {
  const has = (record: Record<string, unknown>, key: string) => Object.prototype.hasOwnProperty.call(record, key);
  return {
    isFile: (path) => has(record.files, path),
    isDirectory: (path) => has(record.folders, path),
    list: (folder) => (has(record.folders, folder) ? [...record.folders[folder]] : []),
    read(path) {
      if (!has(record.files, path)) throw new Error(`${path}: not in the workspace's config record`);
      return record.files[path];
    },
  };
}

function sortedRecord<T>(map: Map<string, T>): Record<string, T> {
  return Object.fromEntries([...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
