import { ApplicationFailure, CancellationScope, sleep } from '@temporalio/workflow';
import { formatDuration } from '../../core/text/duration.js';
import type { MessageError } from '../../core/records/message.js';
import { RUN_TIMED_OUT, type CarriedState, type SessionRunInput } from '../../core/runs/run.js';

/**
 * A run's time limit (`--timeout`, a subagent agent's `timeout`). When it passes, the run's work is
 * cancelled as `loom cancel` cancels it (activities, their processes, subagents, waits for a person
 * or a host), and the run ends failed. The deadline is set once, at the first run of the chain, and
 * continue-as-new carries it, so a long run does not get a fresh limit.
 */
export class RunDeadline {
  /** The limit passed and cancelled the work. */
  timedOut = false;
  private readonly at: number | undefined;

  constructor(private readonly input: SessionRunInput) {
    const limit = input.timeoutMs;
    this.at = input.carried ? input.carried.deadline : limit ? Date.now() + limit : undefined;
  }

  /** Runs the work in a scope that a timer cancels at the deadline; runs without a limit run it as ever. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.at === undefined) return work();
    const scope = new CancellationScope();
    const timer = new CancellationScope();
    void timer
      .run(() => sleep(Math.max(1, this.at! - Date.now())))
      .then(
        () => {
          this.timedOut = true;
          scope.cancel();
        },
        () => undefined, // The work ended first, or the whole run was cancelled.
      );
    try {
      return await scope.run(work);
    } finally {
      timer.cancel();
    }
  }

  /** What continue-as-new hands over. */
  carry(): Pick<CarriedState, 'deadline'> {
    return this.at !== undefined ? { deadline: this.at } : {};
  }

  /** The error the timed-out run records on its last assistant message. */
  error(agent: string): MessageError {
    const { sessionId, timeoutMs, parentPartId, batchTask } = this.input;
    const limit = timeoutMs ?? 0;
    // A task call set the limit from the subagent's agent, a batch from its task; otherwise the person who started the run did.
    const source = parentPartId
      ? `the ${agent} agent's timeout of ${limit} ms`
      : batchTask
        ? `its batch task's timeout of ${formatDuration(limit)}`
        : `its --timeout of ${formatDuration(limit)}`;
    const also = parentPartId ? ` or a task call with session_id ${sessionId}` : '';
    return {
      name: RUN_TIMED_OUT,
      message:
        `Session ${sessionId} timed out after ${formatDuration(limit)} (${source}); its work so far is kept. ` +
        `Continue it with \`loom resume ${sessionId}\`${also}.`,
    };
  }

  /** The failure the timed-out run ends with. */
  failure(agent: string): ApplicationFailure {
    const { name, message } = this.error(agent);
    return ApplicationFailure.create({ type: name, message, nonRetryable: true });
  }
}

/** The result a parent's task call records when its subagent ran out of time. */
export function taskTimedOut(agent: string, timeoutMs: number | undefined, sessionId: string): string {
  const limit = timeoutMs ?? 0;
  return (
    `Task timed out after ${formatDuration(limit)} (the ${agent} agent's timeout of ${limit} ms); ` +
    `its work so far is kept in session ${sessionId}. Continue it with session_id ${sessionId}.`
  );
}
