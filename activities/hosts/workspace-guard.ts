import type { NotThisHost } from '../../core/runs/workspace.js';

/** The activities that read or change a workspace and are tried first in the workflow's own worker. */
export const WORKSPACE_ACTIVITIES = ['prepareRun', 'saveUserMessage', 'runTool'] as const;
type WorkspaceActivity = (typeof WORKSPACE_ACTIVITIES)[number];

/** Input of a workspace activity that must run on the workspace's host. */
export interface HostRequirement {
  /** The workspace's host: a worker of another host does not run the activity. */
  requireHost?: string;
}

export type Guarded<T> = {
  [K in keyof T]: K extends WorkspaceActivity
    ? T[K] extends (input: infer I) => Promise<infer R>
      ? (input: I & HostRequirement) => Promise<R | NotThisHost>
      : T[K]
    : T[K];
};

/**
 * Makes the workspace activities decline on a worker of another host. The workflow tries them as
 * local activities first (no round trip when its worker is the workspace's host) and sends them to
 * the host's task queue when declined.
 */
export function guardWorkspaceActivities<T extends Record<string, unknown>>(
  activities: T,
  hostId: string | undefined,
): Guarded<T> {
  const guarded: Record<string, unknown> = { ...activities };
  for (const name of WORKSPACE_ACTIVITIES) {
    const activity = activities[name] as ((input: HostRequirement) => Promise<unknown>) | undefined;
    if (!activity) continue;
    guarded[name] = async (input: HostRequirement) => {
      if (input.requireHost !== undefined && input.requireHost !== hostId)
        return { notThisHost: true, servedHost: hostId ?? '' } satisfies NotThisHost;
      return activity(input);
    };
  }
  return guarded as Guarded<T>;
}
