import { controlBatch, startBatch } from '../client/services/batches.js';
import { batchProgressQuery } from '../workflows/api.js';
import { startWorkerProcess, stopProcess } from '../testkit/loom/worker-process.js';
import { THINK_MS } from './concurrency.js';
import { BENCH_MODEL, type BenchEnv } from './harness.js';
import { globSteps } from './per-step.js';
import { timed, type Row } from './stats.js';
import { thinkingToolSteps, TOOL_STEPS } from './thinking-model.js';

/** More than the samples need: the batch is cancelled once they are taken, and a sample after it drained is dropped. */
const BATCH_TASKS = 2000;
const BATCH_CONCURRENCY = 100;
const BATCH_PROMPT = 'Batch task';

/**
 * An interactive session's step while a batch saturates the worker, beside the same step on the
 * idle worker: (t25 − t5) / 20 of sessions started as `loom run` starts them, a `glob` per step and
 * the model answering at once, on a `loom worker` process of its own. The batch (2,000 tasks at
 * concurrency 100, each `TOOL_STEPS` tool steps and an answer from a model thinking 2 s per call)
 * runs on the same task queue; a sample counts only if the batch still had tasks waiting after it,
 * and the batch is cancelled once the samples are taken.
 */
export async function contention(bench: BenchEnv, runs: number): Promise<Row[]> {
  const taskQueue = `${bench.taskQueue}-contention`;
  bench.model.setScript([thinkingToolSteps(THINK_MS, { lastUser: BATCH_PROMPT }), ...globSteps()]);
  const worker = await startWorkerProcess({ ...bench.processEnv, LOOM_TASK_QUEUE: taskQueue });
  const session = async (steps: number) => {
    const { result } = await bench.startSession(`Take ${steps} steps.`, { taskQueue });
    return timed(async () => {
      const outcome = await result();
      if (outcome.steps !== steps) throw new Error(`Expected ${steps} steps, the session took ${outcome.steps}`);
    });
  };
  const step = async () => ((await session(25)) - (await session(5))) / 20;
  try {
    await step();
    const idle: number[] = [];
    for (let run = 0; run < runs; run++) idle.push(await step());
    const { batch, handle } = await startBatch(bench.client, bench.store, {
      tasks: Array.from({ length: BATCH_TASKS }, (_, i) => ({
        description: `Task ${i}`,
        prompt: `${BATCH_PROMPT} ${i}: look around.`,
      })),
      source: 'bench.jsonl',
      sourceBytes: 0,
      directory: bench.project,
      agent: 'build',
      model: BENCH_MODEL,
      concurrency: BATCH_CONCURRENCY,
      retries: 0,
      taskQueue,
      ...(bench.temporal.searchAttributes ? {} : { searchAttributes: false }),
    });
    const saturated: number[] = [];
    let drained = 0;
    try {
      // Saturated once every lane of the window has asked the model its first question.
      const batchCalls = () => bench.model.requests.filter((request) => request.lastUser.includes(BATCH_PROMPT));
      while (batchCalls().length < BATCH_CONCURRENCY) await new Promise((resolve) => setTimeout(resolve, 200));
      for (let run = 0; run < runs; run++) {
        const sample = await step();
        const progress = await handle.query(batchProgressQuery);
        if (progress.pending > 0) saturated.push(sample);
        else drained++;
      }
    } finally {
      await controlBatch(bench.client, batch.id, { action: 'cancel' });
      // Cancelled tasks stop at their next step; do not wait on them for ever.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        handle.result().catch(() => undefined),
        new Promise((resolve) => (timer = setTimeout(resolve, 60_000))),
      ]);
      clearTimeout(timer);
      bench.model.requests.length = 0;
    }
    const ratios = saturated.map((sample, i) => sample / idle[i]);
    const batchNote = `${BATCH_TASKS} tasks at concurrency ${BATCH_CONCURRENCY}, ${TOOL_STEPS} tool steps each, model ${THINK_MS / 1000} s/call`;
    return [
      {
        name: 'contention: interactive step, idle worker',
        unit: 'ms/step',
        samples: idle,
        note: '(t25 − t5) / 20, a glob per step, model at once',
      },
      {
        name: 'contention: interactive step, a batch saturating the worker',
        unit: 'ms/step',
        samples: saturated,
        note: drained ? `${batchNote}; ${drained} sample(s) dropped: the batch had drained` : batchNote,
      },
      { name: 'contention: saturated ÷ idle', unit: '×', samples: ratios },
    ];
  } finally {
    await stopProcess(worker);
  }
}
