import { ApplicationFailure } from '@temporalio/common';

/** The activities that read or change a workspace: they must run on its host. */
export const WORKSPACE_ACTIVITIES = ['prepareRun', 'saveUserMessage', 'prepareCommand', 'runTool'] as const;
type WorkspaceActivity = (typeof WORKSPACE_ACTIVITIES)[number];

/** Input of a workspace activity tried first in the worker that runs the workflow (a local activity). */
export interface HostRequirement {
  /** The workspace's host: a worker of another host refuses with `WrongHost`. */
  requireHost?: string;
}

/**
 * Makes the workspace activities refuse to run on a worker of another host. The workflow tries
 * them as local activities first (no round trip when its worker is the workspace's host) and sends
 * them to the host's task queue when refused.
 */
export type Guarded<T> = {
  [K in keyof T]: K extends WorkspaceActivity ? (T[K] extends (input: infer I) => infer R ? (input: I & HostRequirement) => R : T[K]) : T[K];
};

export function guardWorkspaceActivities<T extends Record<string, unknown>>(activities: T, hostId: string | undefined): Guarded<T> {
  const guarded: Record<string, unknown> = { ...activities };
  for (const name of WORKSPACE_ACTIVITIES) {
    const activity = activities[name] as ((input: HostRequirement) => Promise<unknown>) | undefined;
    if (!activity) continue;
    guarded[name] = (input: HostRequirement) => {
      if (input.requireHost !== undefined && input.requireHost !== hostId) {
        throw ApplicationFailure.create({
          type: 'WrongHost',
          message: `This worker serves ${hostId ? `host ${hostId}` : 'no host'}, not ${input.requireHost}`,
          nonRetryable: true,
        });
      }
      return activity(input);
    };
  }
  return guarded as Guarded<T>;
}
