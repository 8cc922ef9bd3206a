// Runs in the workflow sandbox (see workflow-interceptors.ts).
import type { IdGenerator } from '@opentelemetry/sdk-trace-base';
import { workflowInfo } from '@temporalio/workflow';

/** Span and trace ids drawn so far by each run in this worker (forgotten when the run leaves the cache). */
const drawn = new Map<string, number>();

/**
 * Ids that take no randomness from the workflow: OpenTelemetry's own generator draws on
 * `Math.random`, which Loom's workflows draw their ids from too, so a run traced on one worker and
 * replayed on an untraced one would draw other message and session ids. These come from the run
 * id and a count, the same on every replay.
 */
export class RunIdGenerator implements IdGenerator {
  generateTraceId(): string {
    return next(4);
  }

  generateSpanId(): string {
    return next(2);
  }
}

export function forgetRun(runId: string): void {
  drawn.delete(runId);
}

function next(words: number): string {
  const { runId } = workflowInfo();
  const count = (drawn.get(runId) ?? 0) + 1;
  drawn.set(runId, count);
  let id = '';
  for (let word = 0; word < words; word++) id += fnv1a(`${runId}:${count}:${word}`).toString(16).padStart(8, '0');
  return id;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}
