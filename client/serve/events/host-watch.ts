import type { Client } from '@temporalio/client';
import { activityQueueServed } from '../../../activities/hosts/pollers.js';
import type { Session } from '../../../core/records/session.js';
import { hostTaskQueue } from '../../../core/runs/workspace.js';

/** How often the hosts of busy sessions are asked about: the heartbeat's pace. */
export const HOST_CHECK_MS = 10_000;

/**
 * Which busy sessions' hosts no worker serves: their tool calls wait for that machine. The store
 * cannot say (nothing is written while a call waits), so Temporal is asked about each such host's
 * task queue now and then, while someone listens. Without Temporal it says nothing rather than
 * something wrong.
 */
export class HostWatch {
  private readonly busy = new Map<string, Session>();
  private readonly unserved = new Set<string>();
  private readonly listeners = new Set<(sessions: Session[]) => void>();
  private timer: NodeJS.Timeout | undefined;
  private seeded = false;

  constructor(
    private readonly client: () => Promise<Client>,
    private readonly taskQueue: string,
    /** The sessions busy when the first client came, whose rows may not change for a while. */
    private readonly recentSessions: () => Promise<Session[]>,
  ) {}

  /** Follows a session's stored state: busy ones are watched. */
  saw(session: Session): void {
    if (session.status !== 'busy' || !session.host) {
      this.busy.delete(session.id);
      return;
    }
    const newHost = ![...this.busy.values()].some((busy) => busy.host === session.host);
    this.busy.set(session.id, session);
    // A host not watched yet is asked about at once, not at the next round.
    if (newHost && this.listeners.size > 0) void this.check();
  }

  isUnserved(host: string | undefined): boolean {
    return host !== undefined && this.unserved.has(host);
  }

  /** Calls `listener` with the sessions whose host changed between served and not; returns the unsubscribe. */
  subscribe(listener: (sessions: Session[]) => void): () => void {
    this.listeners.add(listener);
    this.timer ??= setInterval(() => void this.check(), HOST_CHECK_MS).unref();
    if (!this.seeded) {
      this.seeded = true;
      this.recentSessions().then(
        (sessions) => sessions.forEach((session) => this.saw(session)),
        () => (this.seeded = false),
      );
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size > 0) return;
      clearInterval(this.timer);
      this.timer = undefined;
    };
  }

  async check(): Promise<void> {
    const hosts = new Set([...this.busy.values()].map((session) => session.host as string));
    if (hosts.size === 0 && this.unserved.size === 0) return;
    let client: Client;
    try {
      client = await this.client();
    } catch {
      return;
    }
    const changed = new Set<string>();
    for (const host of new Set([...hosts, ...this.unserved])) {
      try {
        // A host no busy session waits for any more counts as served: it leaves the list.
        const served =
          !hosts.has(host) ||
          (await activityQueueServed(
            client.workflowService,
            client.options.namespace,
            hostTaskQueue(this.taskQueue, host),
          ));
        if (served === this.unserved.has(host)) changed.add(host);
        if (served) this.unserved.delete(host);
        else this.unserved.add(host);
      } catch {
        // Unknown: leave it as it was.
      }
    }
    if (changed.size === 0) return;
    const sessions = [...this.busy.values()].filter((session) => changed.has(session.host as string));
    for (const listener of this.listeners) listener(sessions);
  }
}
