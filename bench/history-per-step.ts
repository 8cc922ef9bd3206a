import type { ScriptRule } from '../testkit/model/scripted-model-script.js';
import type { BenchEnv } from './harness.js';
import type { Row } from './stats.js';

/** Each step reads the file the prompt names (offsets alternate: identical calls in a row trip the doom-loop guard). */
function readSteps(): ScriptRule[] {
  return [
    {
      reply: (request) => {
        const prompt = request.messages.find((m) => m.role === 'user')?.content ?? '';
        const [, file, steps] = /Read (\S+) in (\d+) steps/.exec(prompt) ?? [];
        const seen = request.messages.filter((m) => m.role === 'tool').length;
        return seen < Number(steps) - 1
          ? { toolCalls: [{ name: 'read', args: { filePath: file, offset: 1 + (seen % 2) } }] }
          : { text: 'Read it all.' };
      },
    },
  ];
}

/**
 * Bytes of workflow history per step, for 1 KiB and 20 KiB tool outputs: (h55 − h5) / 50 over
 * every run of a session. History carries ids and control data, so it should not grow with the
 * outputs; and a 500-step session's total should be 500 such steps (linear, not quadratic).
 */
export async function historyPerStep(bench: BenchEnv): Promise<Row[]> {
  bench.model.setScript(readSteps());
  const session = async (file: string, steps: number) => {
    const { sessionId, result } = await bench.startSession(`Read ${file} in ${steps} steps.`);
    const outcome = await result();
    if (outcome.steps !== steps) throw new Error(`Expected ${steps} steps, the session took ${outcome.steps}`);
    bench.model.requests.length = 0;
    return bench.history(sessionId);
  };
  const perStep = async (file: string) => ((await session(file, 55)).bytes - (await session(file, 5)).bytes) / 50;
  const small = await perStep('notes/1k.txt');
  const large = await perStep('notes/20k.txt');
  const long = await session('notes/1k.txt', 500);
  return [
    { name: 'history: bytes per step, 1 KiB outputs', unit: 'B/step', samples: [small] },
    {
      name: 'history: bytes per step, 20 KiB outputs',
      unit: 'B/step',
      samples: [large],
      note: `${(large / small).toFixed(2)}× the 1 KiB figure`,
    },
    {
      name: 'history: 500-step session, total',
      unit: 'KiB',
      samples: [long.bytes / 1024],
      note: `${long.events} events in ${long.runs} run(s)`,
    },
    {
      name: 'history: 500-step total ÷ (500 × per step)',
      unit: '×',
      samples: [long.bytes / (500 * small)],
      note: '1 = linear',
    },
  ];
}
