import type { ScriptRule } from '../testkit/model/scripted-model-script.js';
import type { BenchEnv } from './harness.js';
import { repeat, timed, type Row } from './stats.js';
import { fanOutWorkflow } from './workflows.js';

export const FAN_OUT = 50;

/** The parent asks for 50 `general` subagents in one response; each answers at once. */
function fanOutScript(): ScriptRule[] {
  return [
    { when: { lastUser: /^Subtask \d+/ }, reply: (request) => ({ text: `done: ${request.lastUser}` }) },
    { when: { lastRole: 'tool' }, reply: { text: 'All subtasks are done.' } },
    {
      reply: {
        toolCalls: Array.from({ length: FAN_OUT }, (_, i) => ({
          name: 'task',
          args: { description: `Subtask ${i}`, prompt: `Subtask ${i}: answer.`, subagent_type: 'general' },
        })),
      },
    },
  ];
}

/** One parent delegating 50 tasks in one model response, next to 50 bare child workflows. */
export async function fanOut(bench: BenchEnv, runs: number): Promise<Row[]> {
  bench.model.setScript(fanOutScript());
  const samples = await repeat(runs, async () => {
    const bare = await timed(() =>
      bench.client.workflow.execute(fanOutWorkflow, {
        workflowId: `fan-out-${Date.now()}`,
        taskQueue: bench.taskQueue,
        args: [FAN_OUT],
      }),
    );
    const { sessionId, result } = await bench.startSession(`Fan out to ${FAN_OUT} subagents.`);
    const loom = await timed(result);
    const children = (await bench.store.children(sessionId)).length;
    if (children !== FAN_OUT) throw new Error(`Expected ${FAN_OUT} subagent sessions, found ${children}`);
    bench.model.requests.length = 0;
    return { loom, bare, ratio: loom / bare };
  });
  return [
    {
      name: `fan-out: ${FAN_OUT} subagent tasks, all results back`,
      unit: 'ms',
      samples: samples.loom,
      note: 'one model response, cap raised to 50',
    },
    { name: `fan-out: ${FAN_OUT} bare child workflows`, unit: 'ms', samples: samples.bare },
    { name: 'fan-out: Loom ÷ bare', unit: '×', samples: samples.ratio },
  ];
}
