import { WorkspaceConfigRecord } from '../config/files.js';

export interface WorkspaceConfigRecords {
  /**
   * Stores the project part of a workspace's configuration under its content-derived id (an
   * idempotent upsert: the same project stores one row however many runs start in it).
   */
  saveWorkspaceConfig(id: string, record: WorkspaceConfigRecord): Promise<void>;
  getWorkspaceConfig(id: string): Promise<WorkspaceConfigRecord | undefined>;
}

/** Workspace config rows as a dialect stores them; what it is given is already validated. */
export interface WorkspaceConfigRows {
  /** Keeps the first row of an id: its content cannot differ. */
  insert(id: string, record: WorkspaceConfigRecord): Promise<void>;
  get(id: string): Promise<WorkspaceConfigRecord | undefined>;
}

export function workspaceConfigRecords(rows: WorkspaceConfigRows): WorkspaceConfigRecords {
  return {
    saveWorkspaceConfig: async (id, record) => rows.insert(id, WorkspaceConfigRecord.parse(record)),
    getWorkspaceConfig: async (id) => rows.get(id),
  };
}
