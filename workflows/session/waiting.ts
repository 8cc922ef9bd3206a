import {
  CancellationScope,
  condition,
  getExternalWorkflowHandle,
  patched,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { escapeMarkdownInline } from '../../core/text/markdown-escape.js';
import { WaitingAttribute } from '../../core/runs/search-attributes.js';
import type { CarriedWaiting, WaitingRequest } from '../../core/runs/run.js';
import { waitingSignal, type WaitingReport } from '../api.js';

/**
 * Runs recorded before the timeline label made no timer for it: `patched` keeps them replaying.
 * The label is a timer because a signal between workflows carries no summary in this SDK.
 */
const TIMELINE_LABEL_PATCH = 'waiting-timeline-label';
/** Longer than any wait: the label's timer is cancelled when the wait changes or ends. */
const TIMELINE_LABEL_SPAN = '3650 days';

/**
 * The permission requests waiting in a run's subtree: its own gate's, and the latest list each of
 * its subagents reported (`waitingSignal`). Whenever that set changes, the run is marked waiting
 * (`LoomWaiting`) or not, its details are redrawn, and its parent is told the whole list, which
 * the parent adds to its own and passes up: the root knows of every request of its tree.
 */
export class WaitingBoard {
  private own: WaitingRequest[] = [];
  private readonly children: Record<string, WaitingRequest[]>;
  private reported: WaitingRequest[];
  private sending = false;
  private ended = false;
  private label?: { scope: CancellationScope; ids: string };

  constructor(
    /** `searchAttributes: false`: the namespace lacks `LoomWaiting`, so runs are not marked. */
    private readonly session: { id: string; parentId?: string; searchAttributes?: false },
    carried: CarriedWaiting | undefined,
    private readonly onChange: () => void,
  ) {
    this.children = { ...carried?.children };
    this.reported = carried?.reported ?? [];
  }

  /** Every request waiting in this run's subtree: its own first, then its subagents'. */
  requests(): WaitingRequest[] {
    return this.ended ? [] : [...this.own, ...Object.values(this.children).flat()];
  }

  /** The requests, for the run's details in the Temporal UI: one block each. */
  details(): string[] {
    return waitingDetails(this.requests(), this.session.id);
  }

  /** The gate's requests changed. */
  setOwn(requests: WaitingRequest[]): void {
    this.own = requests;
    this.changed();
  }

  /** The signal's handler: a subagent's whole current list replaces the one it sent before. */
  childReported(report: WaitingReport): void {
    if (report.requests.length > 0) this.children[report.sessionId] = report.requests;
    else if (report.sessionId in this.children) delete this.children[report.sessionId];
    else return;
    this.changed();
  }

  /** A subagent's run ended: whatever it reported last waits no more (it may have been terminated). */
  childEnded(sessionId: string): void {
    if (!(sessionId in this.children)) return;
    delete this.children[sessionId];
    this.changed();
  }

  carry(): CarriedWaiting | undefined {
    return Object.keys(this.children).length > 0 || this.reported.length > 0
      ? { children: this.children, reported: this.reported }
      : undefined;
  }

  /** The run ends: nothing of it waits any more, and its parent is told so before it closes. */
  async end(): Promise<void> {
    this.ended = true;
    this.changed();
    await this.idle();
  }

  /** Waits until the parent has been told the latest list (before the run ends or continues as new). */
  async idle(): Promise<void> {
    if (this.sending) await condition(() => !this.sending);
  }

  private changed(): void {
    this.mark();
    this.labelTimeline();
    this.onChange();
    this.report();
  }

  /**
   * The Temporal UI's timeline shows a subagent's report only as a `waitingRequests` signal: while
   * requests of subagents wait, a timer labelled with them spans the wait, and a new one starts
   * whenever they change. (The asking run's own store write of the request is labelled already.)
   */
  private labelTimeline(): void {
    const waiting = this.ended ? [] : Object.values(this.children).flat();
    const ids = waiting.map((request) => request.id).join(' ');
    if (ids === (this.label?.ids ?? '')) return;
    this.label?.scope.cancel();
    this.label = undefined;
    if (waiting.length === 0 || !patched(TIMELINE_LABEL_PATCH)) return;
    const scope = new CancellationScope();
    this.label = { scope, ids };
    const summary = timelineLabel(waiting);
    // Cancelled when the wait changes or ends: that is the label's end, not a failure.
    void scope.run(() => sleep(TIMELINE_LABEL_SPAN, { summary })).catch(() => undefined);
  }

  private mark(): void {
    const waiting = this.requests().length > 0;
    if (this.session.searchAttributes === false) return;
    if ((workflowInfo().typedSearchAttributes.get(WaitingAttribute) ?? false) === waiting) return;
    upsertSearchAttributes([{ key: WaitingAttribute, value: waiting }]);
  }

  private report(): void {
    const parentId = this.session.parentId;
    if (!parentId || this.sending || same(this.requests(), this.reported)) return;
    this.sending = true;
    // Not cancellable: a cancelled run still tells its parent that nothing of it waits any more.
    void CancellationScope.nonCancellable(() => this.send(parentId));
  }

  /**
   * Sends the latest list until the parent has been told the current
   * one; one signal at a time, so they arrive in order.
   */
  private async send(parentId: string): Promise<void> {
    try {
      while (!same(this.requests(), this.reported)) {
        const requests = this.requests();
        this.reported = requests;
        // A background subagent's parent run may have finished: nobody is left to tell, which is fine.
        await getExternalWorkflowHandle(parentId)
          .signal(waitingSignal, { sessionId: this.session.id, requests })
          .catch(() => undefined);
      }
    } finally {
      this.sending = false;
    }
  }
}

function same(a: WaitingRequest[], b: WaitingRequest[]): boolean {
  return (
    a.length === b.length &&
    a.every((request, index) => request.id === b[index].id && request.sessionId === b[index].sessionId)
  );
}

/** One line for the timeline: the first request, who asked, how to answer it, and how many more wait. */
export function timelineLabel(requests: WaitingRequest[]): string {
  const [first] = requests;
  const more = requests.length > 1 ? ` (and ${requests.length - 1} more)` : '';
  return (
    `⏸ waiting for approval: ${first.title} (${first.id}), asked by subagent session ${first.sessionId}` +
    `${first.agent ? ` (@${first.agent})` : ''}: loom approve ${first.id}${more}`
  );
}

/**
 * The run's details in the Temporal UI for each waiting request: what asks, where, and how to
 * answer. The UI's markdown starts a list only after a blank line; titles come from tool calls
 * (a glob pattern, a command line): escaped.
 */
export function waitingDetails(requests: WaitingRequest[], sessionId: string): string[] {
  return requests.map(
    (request) =>
      `⏸ waiting for approval: **${escapeMarkdownInline(request.title)}** (${request.id})\n\n` +
      `- tool \`${request.tool}\`, asked by ${request.sessionId === sessionId ? 'this session' : 'subagent session'} ${request.sessionId}` +
      `${request.agent ? ` (@${escapeMarkdownInline(request.agent)})` : ''}\n` +
      `- approve: \`loom approve ${request.id}\` · reject: \`loom approve ${request.id} --reject\``,
  );
}
