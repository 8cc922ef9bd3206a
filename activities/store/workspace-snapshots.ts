import { WorkspaceSnapshot } from '../config/files.js';

export interface WorkspaceSnapshots {
  /**
   * Stores the project part of a workspace's configuration under its content-derived id (an
   * idempotent upsert: the same project stores one row however many runs start in it).
   */
  saveWorkspaceSnapshot(id: string, snapshot: WorkspaceSnapshot): Promise<void>;
  workspaceSnapshot(id: string): Promise<WorkspaceSnapshot | undefined>;
}

/** Snapshot rows as a dialect stores them; what it is given is already validated. */
export interface WorkspaceSnapshotRows {
  /** Keeps the first row of an id: its content cannot differ. */
  insert(id: string, snapshot: WorkspaceSnapshot): Promise<void>;
  get(id: string): Promise<WorkspaceSnapshot | undefined>;
}

export function workspaceSnapshots(rows: WorkspaceSnapshotRows): WorkspaceSnapshots {
  return {
    saveWorkspaceSnapshot: async (id, snapshot) => rows.insert(id, WorkspaceSnapshot.parse(snapshot)),
    workspaceSnapshot: async (id) => rows.get(id),
  };
}
