// Starting the chaos workloads from the driver, as the CLI would, in ways that survive the
// faults: ids are chosen once, so a start that is tried again after an outage starts nothing twice.
import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError, type Client } from '@temporalio/client';
import type { SessionStore } from '../activities/store/store.js';
import { startBatch, type StartBatchOptions } from '../client/services/batches.js';
import { replyToRequest } from '../client/services/permissions.js';
import { InputError } from '../client/input-error.js';
import type { BatchTaskInput } from '../core/batch/batch.js';
import { newId } from '../core/records/ids.js';
import type { ModelRetry, SessionRunInput } from '../core/runs/run.js';
import { AgentAttribute, RootSessionAttribute } from '../core/runs/search-attributes.js';
import { sessionWorkflow } from '../workflows/index.js';
import { CHAOS_MODEL, HOST_ID } from './cluster.js';
import { sleep, throughOutages } from './retry.js';
import { promptOf, type WorkloadKind } from './script.js';
import { errorMessage } from '../core/text/error-message.js';

/** Model calls retry quickly and often: 500s and hung answers are part of the weather. */
export const CHAOS_MODEL_RETRY: ModelRetry = { maximumAttempts: 40, initialIntervalMs: 200, maximumIntervalMs: 2_000 };

/** A root session the driver started, and how its run ended. */
export interface RootRun {
  kind: WorkloadKind;
  tag: string;
  sessionId: string;
  /** Resolves once the run closed ('completed', or why not), or once `Driver.stop()` is called ('stuck'). */
  outcome: Promise<string>;
}

export class Driver {
  readonly roots: RootRun[] = [];
  private stopped = false;
  private wake: (() => void)[] = [];

  constructor(
    private readonly client: Client,
    private readonly store: SessionStore,
    private readonly taskQueue: string,
    private readonly directory: string,
    /** False when the namespace lacks Loom's search attributes: runs then set none. */
    private readonly searchAttributes: boolean,
  ) {}

  /** Starts a root session of a workload, and follows its run. */
  async startRoot(kind: WorkloadKind, tag: string): Promise<RootRun> {
    const sessionId = newId('ses', Date.now(), Math.random);
    const promptId = newId('prm', Date.now(), Math.random);
    const text = promptOf(kind, tag);
    await throughOutages(`saving the prompt of ${sessionId}`, () =>
      this.store.savePrompt({ id: promptId, sessionID: sessionId, text, time: { created: Date.now() } }),
    );
    // The workspace is on the workers' host: its tools run on that host's task queue.
    const input: SessionRunInput & { host?: string } = {
      sessionId,
      directory: this.directory,
      host: HOST_ID,
      agent: 'build',
      model: CHAOS_MODEL,
      promptId,
      modelRetry: CHAOS_MODEL_RETRY,
    };
    if (!this.searchAttributes) input.searchAttributes = false;
    await throughOutages(`starting ${sessionId}`, async () => {
      try {
        await this.client.workflow.start(sessionWorkflow, {
          workflowId: sessionId,
          taskQueue: this.taskQueue,
          args: [input],
          staticSummary: `build · chaos ${kind} ${tag}`,
          ...(this.searchAttributes
            ? {
                typedSearchAttributes: [
                  { key: AgentAttribute, value: 'build' },
                  { key: RootSessionAttribute, value: sessionId },
                ],
              }
            : {}),
        });
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      }
    });
    const root: RootRun = { kind, tag, sessionId, outcome: this.follow(sessionId) };
    this.roots.push(root);
    return root;
  }

  /** Starts the batch; it runs before any fault, so a plain start will do. */
  async startBatch(tags: string[], concurrency: number) {
    const tasks: BatchTaskInput[] = tags.map((tag) => ({
      description: `Batch ${tag}`,
      prompt: promptOf('batch', tag),
    }));
    const options: StartBatchOptions & { host?: string } = {
      tasks,
      source: 'chaos.jsonl',
      sourceBytes: JSON.stringify(tasks).length,
      directory: this.directory,
      host: HOST_ID,
      agent: 'build',
      model: CHAOS_MODEL,
      concurrency,
      retries: 0,
      taskQueue: this.taskQueue,
      modelRetry: CHAOS_MODEL_RETRY,
      ...(this.searchAttributes ? {} : { searchAttributes: false }),
    };
    const { batch, handle } = await startBatch(this.client, this.store, options);
    return { batchId: batch.id, outcome: this.follow(handle.workflowId) };
  }

  /** Answers a permission request once; what went wrong, if it could not be answered. */
  async answer(requestId: string): Promise<string | undefined> {
    try {
      await throughOutages(
        `answering ${requestId}`,
        () => replyToRequest(this.client, this.store, { requestId, reply: 'once' }),
        {
          isFinal: (error) => error instanceof InputError,
        },
      );
      return undefined;
    } catch (error) {
      return errorMessage(error);
    }
  }

  /** Waits for a workflow to close, across outages; 'stuck' once `stop()` is called. */
  private async follow(workflowId: string): Promise<string> {
    while (!this.stopped) {
      try {
        const result = await Promise.race([this.client.workflow.getHandle(workflowId).result(), this.stoppedSignal()]);
        if (result === 'stopped') break;
        return (result as { status?: string }).status ?? 'completed';
      } catch (error) {
        if (error instanceof WorkflowFailedError) return `failed: ${error.cause?.message ?? error.message}`;
        await sleep(1_000);
      }
    }
    return 'stuck';
  }

  private stoppedSignal(): Promise<'stopped'> {
    return new Promise((resolve) => this.wake.push(() => resolve('stopped')));
  }

  /** Stops following: runs still open count as stuck. */
  stop() {
    this.stopped = true;
    for (const wake of this.wake.splice(0)) wake();
  }
}
