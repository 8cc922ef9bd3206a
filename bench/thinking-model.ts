import type { Matcher, ScriptRule, ScriptedToolCall } from '../testkit/model/scripted-model-script.js';

/** Tool steps a session of the `concurrency` and `contention` benchmarks takes before its answer. */
export const TOOL_STEPS = 5;

/** Small looks at the bench project, in turn (identical calls in a row would trip the doom-loop guard). */
const LOOKS: ScriptedToolCall[] = [
  { name: 'glob', args: { pattern: '*.md' } },
  { name: 'read', args: { filePath: 'README.md' } },
  { name: 'glob', args: { pattern: 'src/*.ts' } },
  { name: 'read', args: { filePath: 'src/a.ts' } },
];

/**
 * A model that thinks `thinkMs` before each answer, as a real provider does: `TOOL_STEPS` tool
 * calls (`glob` and `read` of the bench project), then a final answer. `when` picks its requests.
 */
export function thinkingToolSteps(thinkMs: number, when?: Matcher): ScriptRule {
  return {
    name: `${TOOL_STEPS} tool steps, ${thinkMs} ms each`,
    ...(when ? { when } : {}),
    reply: (request) => {
      const seen = request.messages.filter((message) => message.role === 'tool').length;
      return seen < TOOL_STEPS
        ? { delayMs: thinkMs, toolCalls: [LOOKS[seen % LOOKS.length]] }
        : { delayMs: thinkMs, text: `Done after ${TOOL_STEPS} tool steps.` };
    },
  };
}
