import { existsSync } from 'node:fs';
import { busEventOf, type BusEvent } from '../../core/records/bus-events.js';
import type { SessionRecords } from '../store/sessions.js';
import type { ChangeFeed } from '../store/change-feed.js';
import type { BatchRecords } from '../store/batches.js';
import type { ConfigTrustRecords } from '../store/config-trust.js';
import { trustedProjectFiles } from '../config/trust.js';
import type { FeedEntry } from '../store/feed-page.js';
import { warnInWorkerLog } from '../process/worker-log.js';
import { callHook } from './hooks.js';
import { eventHooksSeen, loadPlugins } from './load.js';
import type { LoadedPlugin } from './types.js';
import { errorMessage } from '../../core/text/error-message.js';

export interface PluginEventsOptions {
  store: BatchRecords & ChangeFeed & SessionRecords & ConfigTrustRecords;
  env: NodeJS.ProcessEnv;
  /** This machine's host id: only workspaces of this host (or of no host) get their plugins' events. */
  hostId: string;
}

export interface PluginEventFollower {
  /** Stops following; events not yet delivered are dropped. */
  stop(): Promise<void>;
}

/** Rows read per page of the feed. */
const PAGE_ROWS = 500;
/** How long to wait for the feed before looking again anyway. */
const WAIT_MS = 30_000;
/** After a failed read of the store, the next try comes this much later. */
const RETRY_MS = 2_000;
/** How long a directory's list of `event` hooks is trusted before its plugins are looked up again. */
const HOOKS_TTL_MS = 5_000;
/** Events waiting for one plugin; past that (a plugin much slower than the feed) new ones are dropped. */
const QUEUE_LIMIT = 1_000;
const SESSION_CACHE_LIMIT = 10_000;

interface Workspace {
  directory: string;
  host?: string;
}

/**
 * Sends every event of the store's feed, from now on, to the `event` hooks of the plugins of the
 * workspace it belongs to, in the shapes `loom serve`'s `GET /event` sends (`session.updated`,
 * `message.part.updated`, `permission.asked`, …; a row's latest state per page, not every delta).
 *
 * A worker reads the feed only once it has loaded some project's plugins with an `event` hook
 * (its first tool or model call there); it then catches up from its own start, so a session's
 * first events are delivered too, a moment late. Until then it costs nothing.
 *
 * Events are notifications, not durable: nothing is delivered twice on purpose, nothing missed
 * while no worker ran is sent later, and every worker of a host that runs this follower delivers
 * the same events. Each plugin gets its events in order on its own queue, so a slow or hanging
 * plugin (bounded by `plugin_timeout` per event) delays only itself; its failures are written to
 * the worker log once per plugin and never stop the follower or a run.
 */
export function followPluginEvents(options: PluginEventsOptions): PluginEventFollower {
  const stopping = new AbortController();
  const follower = new Follower(options, stopping.signal);
  const running = follower.run();
  return {
    async stop() {
      stopping.abort();
      await running;
    },
  };
}

class Follower {
  private readonly sessions = new Map<string, Workspace>();
  private readonly hooks = new Map<string, { at: number; plugins: LoadedPlugin[]; timeoutMs: number }>();
  private readonly queues = new WeakMap<LoadedPlugin, { tail: Promise<void>; length: number }>();
  private readonly warned = new Set<string>();

  constructor(
    private readonly options: PluginEventsOptions,
    private readonly signal: AbortSignal,
  ) {}

  async run(): Promise<void> {
    const { store } = this.options;
    let cursor: number | undefined;
    let idle = true;
    while (!this.signal.aborted) {
      try {
        cursor ??= (await store.feed(Number.MAX_SAFE_INTEGER)).cursor;
        if (idle) {
          // Lazily: the feed is read only once this process has loaded a plugin with an `event`
          // hook (a tool call or model call of its project did), then from the worker's start on.
          await eventHooksSeen(this.signal);
          idle = false;
          continue;
        }
        const page = await store.feed(cursor, PAGE_ROWS);
        for (const entry of page.entries) {
          if (this.signal.aborted) return;
          await this.deliver(entry);
        }
        cursor = page.cursor;
        if (!page.more) await store.waitForFeed(cursor, { timeoutMs: WAIT_MS, signal: this.signal });
      } catch (error) {
        if (this.signal.aborted) return;
        this.warnOnce('store', `Plugin events: cannot read the store's feed (${errorMessage(error)}); trying again`);
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref());
      }
    }
  }

  private async deliver(entry: FeedEntry): Promise<void> {
    const workspace = await this.workspaceOf(entry);
    if (!workspace || (workspace.host && workspace.host !== this.options.hostId)) return;
    const found = await this.eventHooks(workspace.directory);
    if (!found || found.plugins.length === 0) return;
    const event: BusEvent = busEventOf(
      entry,
      entry.kind === 'batch' ? await this.options.store.batchCounts(entry.batch.id) : undefined,
    );
    for (const plugin of found.plugins) this.enqueue(plugin, event, found.timeoutMs);
  }

  /** Calls one plugin's hook after the events it has not finished yet. */
  private enqueue(plugin: LoadedPlugin, event: BusEvent, timeoutMs: number): void {
    let queue = this.queues.get(plugin);
    if (!queue) this.queues.set(plugin, (queue = { tail: Promise.resolve(), length: 0 }));
    if (queue.length >= QUEUE_LIMIT) {
      this.warnOnce(
        `full:${plugin.name}`,
        `Plugin ${plugin.name}: hook "event" falls behind by ${QUEUE_LIMIT} events; newer ones are dropped until it catches up`,
      );
      return;
    }
    const current = queue;
    current.length++;
    current.tail = current.tail
      .then(async () => {
        if (this.signal.aborted) return;
        await callHook(plugin, 'event', timeoutMs, { event });
      })
      .catch((error: unknown) =>
        this.warnOnce(
          `hook:${plugin.name}`,
          `${errorMessage(error)} (event ${event.type}; later failures of this plugin are not logged)`,
        ),
      )
      .finally(() => current.length--);
  }

  /** The workspace of an entry's session (or batch); null for a session the store does not have. */
  private async workspaceOf(entry: FeedEntry): Promise<Workspace | null> {
    switch (entry.kind) {
      case 'session':
        return this.remember(entry.session.id, { directory: entry.session.directory, host: entry.session.host });
      case 'batch':
        return { directory: entry.batch.directory, host: entry.batch.host };
      case 'message':
        return this.sessionWorkspace(entry.message.sessionID);
      case 'part':
        return this.sessionWorkspace(entry.part.sessionID);
      case 'part-removed':
      case 'message-removed':
        return this.sessionWorkspace(entry.sessionID);
      case 'session-removed':
        return { directory: entry.session.directory, host: entry.session.host };
      case 'permission':
        return this.sessionWorkspace(entry.request.sessionID);
    }
  }

  private async sessionWorkspace(id: string): Promise<Workspace | null> {
    const known = this.sessions.get(id);
    if (known) return known;
    const session = await this.options.store.getSession(id);
    return session ? this.remember(id, { directory: session.directory, host: session.host }) : null;
  }

  private remember(id: string, workspace: Workspace): Workspace {
    if (this.sessions.size >= SESSION_CACHE_LIMIT) this.sessions.delete(this.sessions.keys().next().value!);
    this.sessions.set(id, workspace);
    return workspace;
  }

  /**
   * The plugins of a directory on this machine that have an `event` hook, looked up at most every
   * few seconds (`loadPlugins` keeps the modules loaded; this spares it reading the config again
   * for every event). A directory that is not here, or whose plugins do not load, has none.
   */
  private async eventHooks(directory: string): Promise<{ plugins: LoadedPlugin[]; timeoutMs: number } | undefined> {
    const cached = this.hooks.get(directory);
    if (cached && Date.now() - cached.at < HOOKS_TTL_MS) return cached;
    let found = { at: Date.now(), plugins: [] as LoadedPlugin[], timeoutMs: 0 };
    if (existsSync(directory)) {
      try {
        const project = await trustedProjectFiles(this.options.store, directory);
        const plugins = project ? await loadPlugins(directory, this.options.env, project) : { list: [], timeoutMs: 0 };
        found = {
          at: Date.now(),
          plugins: plugins.list.filter((plugin) => plugin.hooks.event),
          timeoutMs: plugins.timeoutMs,
        };
      } catch (error) {
        this.warnOnce(
          `load:${directory}:${errorMessage(error)}`,
          `${errorMessage(error)} (its "event" hooks get no events)`,
        );
      }
    }
    this.hooks.delete(directory);
    this.hooks.set(directory, found);
    if (this.hooks.size > SESSION_CACHE_LIMIT) this.hooks.delete(this.hooks.keys().next().value!);
    return found;
  }

  private warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    warnInWorkerLog(message);
  }
}
