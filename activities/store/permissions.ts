import type { PermissionRule } from '../../core/rules/permission.js';
import { PermissionRequestRecord } from '../../core/rules/permission-request.js';

type RequestFilter = { status?: PermissionRequestRecord['status']; rootID?: string };

/** Tool calls waiting for a person, and the "always" approvals of each session tree. */
export interface PermissionRecords {
  savePermissionRequest(request: PermissionRequestRecord): Promise<void>;
  getPermissionRequest(id: string): Promise<PermissionRequestRecord | undefined>;
  /** Requests, oldest first, optionally of one status and one session tree. */
  permissionRequests(filter?: RequestFilter): Promise<PermissionRequestRecord[]>;
  /** Allow rules a person granted with "always" for a session tree, in the order granted. */
  approvedRules(rootId: string): Promise<PermissionRule[]>;
  addApprovedRules(rootId: string, rules: PermissionRule[]): Promise<void>;
}

/** What an "always" approval grants: every such rule allows. */
export type Grant = Pick<PermissionRule, 'permission' | 'pattern'>;

/** Permission rows as a dialect stores them; what it is given is already validated. */
export interface PermissionRows {
  /** Writes the request at a new revision. */
  upsert(request: PermissionRequestRecord): Promise<void>;
  get(id: string): Promise<PermissionRequestRecord | undefined>;
  list(filter: RequestFilter): Promise<PermissionRequestRecord[]>;
  /** The tree's grants in the order first granted. */
  grants(rootId: string): Promise<Grant[]>;
  /** Appends each grant the tree does not hold yet, in one transaction; one already held keeps its place. */
  grant(rootId: string, grants: Grant[]): Promise<void>;
}

export function permissionRecords(rows: PermissionRows): PermissionRecords {
  return {
    savePermissionRequest: async (request) => rows.upsert(PermissionRequestRecord.parse(request)),
    getPermissionRequest: async (id) => rows.get(id),
    permissionRequests: async (filter = {}) => rows.list(filter),
    approvedRules: async (rootId) =>
      (await rows.grants(rootId)).map((grant) => ({ ...grant, action: 'allow' as const })),
    addApprovedRules: async (rootId, rules) =>
      rows.grant(
        rootId,
        rules.map(({ permission, pattern }) => ({ permission, pattern })),
      ),
  };
}
