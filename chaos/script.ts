// What the scripted model says in a chaos run. Every answer is a function of the transcript it is
// shown (which workload, how many tool steps so far), never of what it answered before, so a
// model call that is retried after a kill, a 500 or a hung connection gets the same answer.
import type { RecordedRequest, ScriptRule, ScriptedReply } from '../testkit/model/scripted-model-script.js';

export const SIDE_EFFECTS_FILE = 'side-effects.log';

export interface ScriptedCall {
  name: string;
  args: Record<string, unknown>;
}

/** One model answer: tool calls (run in parallel), or the final text. */
export type Step = { tools: ScriptedCall[] } | { text: string };

export type WorkloadKind = 'loop' | 'tree' | 'child' | 'ask' | 'batch';

/** Appends the token to the side-effect log: a non-idempotent command, counted afterwards. */
const sideEffect = (token: string): ScriptedCall => ({
  name: 'bash',
  args: { command: `echo ${token} >> ${SIDE_EFFECTS_FILE}`, description: `Record ${token}` },
});

/** The prompt that starts a workload; its first words name the kind and the tag. */
export const promptOf = (kind: WorkloadKind, tag: string) => `chaos ${kind} ${tag}: follow the script.`;

/** The answers a session of this kind gets, in order. */
export function stepsOf(kind: WorkloadKind, tag: string, children = 0): Step[] {
  switch (kind) {
    case 'loop':
      return [
        { tools: [{ name: 'write', args: { filePath: `loops/${tag}.txt`, content: `${tag}\n` } }] },
        { tools: [sideEffect(`${tag}-a`)] },
        { tools: [{ name: 'read', args: { filePath: `loops/${tag}.txt` } }] },
        { tools: [sideEffect(`${tag}-b`), { name: 'glob', args: { pattern: `loops/${tag}.*` } }] },
        { text: `${tag} done` },
      ];
    case 'tree':
      return [
        {
          tools: Array.from({ length: children }, (_, k) => ({
            name: 'task',
            args: {
              description: `Child ${tag}-${k}`,
              prompt: promptOf('child', `${tag}-${k}`),
              subagent_type: 'general',
            },
          })),
        },
        { text: `${tag} done` },
      ];
    case 'child':
      return [{ tools: [sideEffect(tag), { name: 'read', args: { filePath: 'README.md' } }] }, { text: `${tag} done` }];
    case 'ask':
      return [
        { tools: [{ name: 'write', args: { filePath: `asks/${tag}.txt`, content: `${tag}\n` } }] },
        { tools: [sideEffect(tag)] },
        { text: `${tag} done` },
      ];
    case 'batch':
      return [{ tools: [sideEffect(tag)] }, { text: `${tag} done` }];
  }
}

/** The side-effect tokens a workload's bash calls write. */
export function sideEffectTokens(steps: Step[]): string[] {
  return steps
    .flatMap((step) => ('tools' in step ? step.tools : []))
    .filter((call) => call.name === 'bash')
    .map((call) => /^echo (\S+) >>/.exec(String(call.args.command))![1]);
}

const PROMPT = /chaos (loop|tree|child|ask|batch) (\S+):/;

export interface ModelFaults {
  /** Share of requests answered with HTTP 500. */
  error500: number;
  /** Share of requests whose answer starts and then stops: silent with the connection open, or cut. */
  hang: number;
  random: () => number;
}

export interface FaultCounts {
  requests: number;
  errors500: number;
  hangs: number;
  drops: number;
}

/** The one rule of the chaos model: the next step of the workload named by the prompt. */
export function chaosScript(children: number, faults: ModelFaults, counts: FaultCounts): ScriptRule[] {
  return [
    {
      name: 'chaos',
      reply: (request: RecordedRequest): ScriptedReply => {
        counts.requests++;
        const roll = faults.random();
        if (roll < faults.error500) {
          counts.errors500++;
          return { status: 500, errorMessage: 'chaos: injected server error' };
        }
        if (roll < faults.error500 + faults.hang) {
          // Half go silent with the connection open (the idle timeout aborts them), half drop it.
          if (counts.hangs <= counts.drops) {
            counts.hangs++;
            return { text: 'this answer never finishes', stallAfterChunks: 1 };
          }
          counts.drops++;
          return { text: 'this answer is cut off mid-stream', chunkSize: 8, hangUp: true };
        }
        const match = PROMPT.exec(request.lastUser);
        if (!match) return { text: `chaos: no workload in ${JSON.stringify(request.lastUser.slice(0, 80))}` };
        const steps = stepsOf(match[1] as WorkloadKind, match[2], children);
        const done = request.messages.filter(
          (m) => m?.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length,
        ).length;
        const step = steps[Math.min(done, steps.length - 1)];
        if ('text' in step) return { text: step.text };
        return { toolCalls: step.tools.map((call) => ({ name: call.name, args: call.args })) };
      },
    },
  ];
}
