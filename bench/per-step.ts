import { newId } from '../core/records/ids.js';
import type { ScriptRule } from '../testkit/model/scripted-model-script.js';
import { BENCH_MODEL, type BenchEnv } from './harness.js';
import { runInProcess } from './in-process-loop.js';
import { timed, type Measurement, type Row } from './stats.js';
import { sequentialActivitiesWorkflow } from './workflows.js';

/** Each step one small `glob` call (patterns alternate: identical calls in a row trip the doom-loop guard). */
export function globSteps(): ScriptRule[] {
  return [
    {
      reply: (request) => {
        const steps = Number(
          /(\d+) steps/.exec(request.messages.find((m) => m.role === 'user')?.content ?? '')?.[1] ?? 1,
        );
        const seen = request.messages.filter((m) => m.role === 'tool').length;
        return seen < steps - 1
          ? { toolCalls: [{ name: 'glob', args: { pattern: seen % 2 ? 'src/*.ts' : '*.md' } }] }
          : { text: `Done after ${steps} steps.` };
      },
    },
  ];
}

/**
 * Per-step overhead: per-step time = (t105 − t5) / 100 for Loom sessions, next to the floor (one
 * no-op activity round trip, from 100 in a row) and the same loop run in-process without Temporal,
 * each on the bench's store (named in the rows: the in-process loop writes to the same store).
 */
export function perStep(bench: BenchEnv): Measurement {
  bench.model.setScript(globSteps());
  const loomSession = async (steps: number) => {
    const { result } = await bench.startSession(`Take ${steps} steps.`);
    return timed(async () => {
      const outcome = await result();
      if (outcome.steps !== steps) throw new Error(`Expected ${steps} steps, the session took ${outcome.steps}`);
    });
  };
  const inProcessSession = (steps: number) =>
    timed(async () => {
      const sessionId = newId('ses', Date.now(), Math.random);
      const taken = await runInProcess(bench.activities, {
        sessionId,
        directory: bench.project,
        agent: 'build',
        model: BENCH_MODEL,
        prompt: `Take ${steps} steps.`,
      });
      if (taken !== steps) throw new Error(`Expected ${steps} steps, the in-process loop took ${taken}`);
    });
  const measure = async () => {
    const floor =
      (await timed(() =>
        bench.client.workflow.execute(sequentialActivitiesWorkflow, {
          workflowId: `floor-${Date.now()}`,
          taskQueue: bench.taskQueue,
          args: [100],
        }),
      )) / 100;
    const loom = ((await loomSession(105)) - (await loomSession(5))) / 100;
    const inProcess = ((await inProcessSession(105)) - (await inProcessSession(5))) / 100;
    bench.model.requests.length = 0;
    return {
      floor,
      loom,
      inProcess,
      loomOverFloor: loom / floor,
      loomOverInProcess: loom / inProcess,
      durabilityOverFloor: (loom - inProcess) / floor,
    };
  };
  const label = `step (${bench.storeName})`;
  const rows = (samples: Record<string, number[]>): Row[] => [
    {
      name: `${label}: Loom session`,
      unit: 'ms/step',
      samples: samples.loom,
      note: '(t105 − t5) / 100, one glob call per step',
    },
    {
      name: `${label}: floor (no-op activity round trip)`,
      unit: 'ms',
      samples: samples.floor,
      note: '100 in a row in a bare workflow',
    },
    {
      name: `${label}: in-process loop, no Temporal`,
      unit: 'ms/step',
      samples: samples.inProcess,
      note: 'same model calls, tools and store rows',
    },
    { name: `${label}: Loom ÷ floor`, unit: '×', samples: samples.loomOverFloor },
    { name: `${label}: Loom ÷ in-process`, unit: '×', samples: samples.loomOverInProcess },
    {
      name: `${label}: (Loom − in-process) ÷ floor`,
      unit: '×',
      samples: samples.durabilityOverFloor,
      note: 'what durability adds, in round trips',
    },
  ];
  return { measure, rows };
}
