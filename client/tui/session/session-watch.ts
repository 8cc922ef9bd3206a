import type { SessionStore } from '../../../activities/store/store.js';
import type { Session } from '../../../core/records/session.js';
import type { PermissionRequestRecord } from '../../../core/rules/permission-request.js';
import { totalTokens } from '../../../core/records/tokens.js';
import { followSession } from '../../follow/session-changes.js';
import { rootSessionOf } from '../../../activities/session/session-root.js';
import { sessionTree, type SessionNode } from '../../services/session-tree.js';
import { TranscriptModel, type Entry } from '../transcript/transcript-model.js';
import type { ChildSummary } from '../transcript/tool-lines.js';

/** How often the session's row, its subagents and the tree's waiting requests are read again. */
const META_EVERY_MS = 400;
/** While nothing in the tree works, its usage is read again only every this many looks (a subagent started elsewhere shows within 2 s). */
const IDLE_TREE_EVERY = 5;

/** What the screen shows of one session, as of the last look. */
export interface SessionSnapshot {
  sessionId: string;
  session?: Session;
  /** The session is not (or no longer) in the store. */
  missing: boolean;
  entries: Entry[];
  /** Its subagents' sessions, oldest first, with their tokens. */
  children: ChildSummary[];
  /** Requests waiting anywhere in the session's tree (a subagent's, two levels down, too). */
  pending: PermissionRequestRecord[];
  /** The session's tree, with each node's usage and the tree's budget. */
  tree?: SessionNode;
  rootId: string;
  /** Bumped on every change, so a view knows to draw again. */
  revision: number;
}

/**
 * Keeps a session's snapshot current: the transcript from the store's change feed (the follower
 * `loom run`, the server and ACP share), and its row, subagents and the tree's waiting requests
 * read again a few times a second, so an answer given elsewhere shows here within a second.
 */
export class SessionWatch {
  private readonly transcript = new TranscriptModel();
  private snapshot: SessionSnapshot;
  private readonly listeners = new Set<() => void>();
  private readonly stopped = new AbortController();
  private metaTimer: NodeJS.Timeout | undefined;
  private readingMeta = false;
  private childrenKey = '';
  private rootId: string | undefined;
  private idleLooks = 0;
  private pendingKey = '';

  constructor(
    private readonly store: SessionStore,
    readonly sessionId: string,
    private readonly onError: (error: unknown) => void,
  ) {
    this.snapshot = {
      sessionId,
      missing: false,
      entries: [],
      children: [],
      pending: [],
      rootId: sessionId,
      revision: 0,
    };
  }

  private starting: Promise<void> | undefined;

  /** Starts following (once, however often called); resolves once the first look (transcript and row) is in. */
  start(): Promise<void> {
    this.starting ??= this.begin();
    return this.starting;
  }

  private async begin(): Promise<void> {
    await this.readMeta();
    const first = await this.store.changes(this.sessionId, 0);
    this.transcript.apply(first);
    this.publish({ entries: this.transcript.list() });
    const done = new Promise<void>((resolve) => this.stopped.signal.addEventListener('abort', () => resolve()));
    void followSession(
      this.store,
      this.sessionId,
      first.cursor,
      {
        update: (changes) => {
          if (this.transcript.apply(changes)) this.publish({ entries: this.transcript.list() });
        },
      },
      done,
    ).catch((error: unknown) => this.onError(error));
    this.metaTimer = setInterval(() => void this.readMeta(), META_EVERY_MS);
  }

  stop(): void {
    this.stopped.abort();
    clearInterval(this.metaTimer);
    this.listeners.clear();
  }

  current(): SessionSnapshot {
    return this.snapshot;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Reads the row, subagents and waiting requests again now (after an answer given here, say). */
  async refresh(): Promise<void> {
    await this.readMeta();
  }

  private async readMeta(): Promise<void> {
    if (this.readingMeta || this.stopped.signal.aborted) return;
    this.readingMeta = true;
    try {
      const session = await this.store.getSession(this.sessionId);
      if (!session) {
        if (!this.snapshot.missing) this.publish({ session: undefined, missing: true });
        return;
      }
      // A session's root never changes; its tree's usage changes only while something in it works.
      this.rootId ??= session.parentID ? await rootSessionOf(this.store, session.id) : session.id;
      const rootId = this.rootId;
      const working =
        session.status === 'busy' || this.snapshot.children.some((child) => child.session.status === 'busy');
      const tree =
        working || !this.snapshot.tree || this.idleLooks++ % IDLE_TREE_EVERY === 0
          ? await sessionTree(this.store, session)
          : this.snapshot.tree;
      const children = tree.children.map((node) => ({ session: node.session, tokens: totalTokens(node.tree.tokens) }));
      const pending = await this.store.permissionRequests({ status: 'pending', rootID: rootId });
      const childrenKey = children
        .map((child) => `${child.session.id}:${child.session.status}:${child.tokens}:${child.session.title}`)
        .join('|');
      const pendingKey = pending.map((request) => request.id).join('|');
      const changed =
        session.time.updated !== this.snapshot.session?.time.updated ||
        session.status !== this.snapshot.session?.status ||
        session.title !== this.snapshot.session?.title ||
        session.revert?.messageID !== this.snapshot.session?.revert?.messageID ||
        childrenKey !== this.childrenKey ||
        pendingKey !== this.pendingKey ||
        totalTokens(tree.tree.tokens) !== (this.snapshot.tree ? totalTokens(this.snapshot.tree.tree.tokens) : -1);
      this.childrenKey = childrenKey;
      this.pendingKey = pendingKey;
      if (changed) this.publish({ session, missing: false, rootId, tree, children, pending });
    } catch (error) {
      this.onError(error);
    } finally {
      this.readingMeta = false;
    }
  }

  private publish(change: Partial<SessionSnapshot>): void {
    this.snapshot = { ...this.snapshot, ...change, revision: this.snapshot.revision + 1 };
    for (const listener of this.listeners) listener();
  }
}
