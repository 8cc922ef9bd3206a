import type { RecordedRequest, ScriptRule } from '../model/scripted-model-script.js';

/** The prompt typed into the terminal UI for `npm run screenshot:tui`. */
export const SCREENSHOT_PROMPT = 'Where is the session loop, and what does it do?';

/** How the final answer's last line starts: the picture is taken once the screen shows it. */
export const SCREENSHOT_ANSWER_END = '@explore found each step in its own file';

/** The loop's steps the explore subagent looks for, in the order the loop takes them. */
const STEPS = ['takePrompts', 'modelStep', 'runToolCalls', 'compact'];

/**
 * What the scripted model says in the README's picture of the terminal UI: the build agent reads
 * the workflow and has the explore subagent find the loop's steps, then answers in markdown with a
 * few lines of the loop. Every path, line number and line of code comes from what the tools returned
 * in this checkout, so the picture stays true when the code moves.
 */
export const screenshotScript: ScriptRule[] = [
  {
    name: 'title',
    when: { lastUser: /^Generate a title for this conversation/ },
    reply: { text: 'The session loop' },
  },
  {
    name: 'look',
    when: { lastUser: SCREENSHOT_PROMPT, lastRole: 'user' },
    reply: {
      text: "I'll read the workflow, and have @explore find where each step of the loop lives.",
      chunkDelayMs: 20,
      chunkSize: 8,
      toolCalls: [
        { name: 'read', args: { filePath: 'workflows/session.ts' } },
        {
          name: 'task',
          args: {
            description: "Find the loop's steps",
            prompt: `Quick: which files under workflows/session/ define ${STEPS.join(', ')}?`,
            subagent_type: 'explore',
          },
        },
      ],
    },
  },
  {
    name: 'explore: search',
    when: { lastUser: /^Quick: which files/, lastRole: 'user' },
    reply: {
      toolCalls: [
        {
          name: 'grep',
          args: { pattern: `^export async function (${STEPS.join('|')})\\b`, path: 'workflows/session' },
        },
      ],
    },
  },
  {
    name: 'explore: answer',
    when: { lastUser: /^Quick: which files/, lastRole: 'tool' },
    reply: (request) => ({ text: stepsFound(request), chunkDelayMs: 20, chunkSize: 8 }),
  },
  {
    name: 'answer',
    when: { lastUser: SCREENSHOT_PROMPT, lastRole: 'tool' },
    reply: (request) => ({ text: loopAnswer(request), chunkDelayMs: 15, chunkSize: 12 }),
  },
];

/** The explore subagent's answer: each step and where the grep found it, as `- name: path:line`. */
function stepsFound(request: RecordedRequest): string {
  const output = toolOutputs(request).at(-1) ?? '';
  const directory = /Working directory: (.+)/.exec(request.system)?.[1];
  const found = new Map<string, string>();
  let file = '';
  for (const line of output.split('\n')) {
    const path = /^(\S+\.ts):$/.exec(line)?.[1];
    if (path) file = directory && path.startsWith(`${directory}/`) ? path.slice(directory.length + 1) : path;
    const match = /^\s+Line (\d+): export async function (\w+)/.exec(line);
    if (match) found.set(match[2], `${file}:${match[1]}`);
  }
  if (!found.size) return 'I found none of them.';
  return STEPS.filter((step) => found.has(step))
    .map((step) => `- ${step}: ${found.get(step)}`)
    .join('\n');
}

/** The final answer: where the loop is, what each pass does, its lines as read, and the subagent's files. */
function loopAnswer(request: RecordedRequest): string {
  const [read = '', task = ''] = toolOutputs(request);
  const numbered = read.split('\n').flatMap((line) => {
    const match = /^\s*(\d+)\t(.*)$/.exec(line);
    return match ? [{ number: Number(match[1]), text: match[2] }] : [];
  });
  const start = numbered.find((line) => line.text.startsWith('export async function sessionWorkflow('));
  const pick = (prefix: string) => numbered.find((line) => line.text.trim().startsWith(prefix))?.text;
  const loop = [
    pick('while (!input.compact)'),
    pick('await takePrompts('),
    pick('const { more } = await modelStep('),
    pick('if (!more) break;'),
  ];
  const files = [...task.matchAll(/workflows\/session\/([\w-]+\.ts)/g)].map((match) => match[1]);
  if (!start || loop.some((line) => line === undefined)) return 'I could not find the loop in workflows/session.ts.';
  const [head, take, step, stop] = loop as string[];
  const margin = /^\s*/.exec(head)![0].length;
  const body = ' '.repeat(/^\s*/.exec(take)![0].length);
  const code = [head, take, `${body}// … the budget, compaction, subtasks …`, step, stop, `${' '.repeat(margin)}}`].map(
    (line) => line.slice(margin),
  );
  return [
    `The loop is \`sessionWorkflow\` in **workflows/session.ts:${start.number}**, one workflow per session. Each pass:`,
    '',
    '1. `takePrompts` appends the prompts queued for the session;',
    '2. `modelStep` calls the model and runs the tool calls it made, in parallel; no calls ends the loop.',
    '',
    '```ts',
    ...code,
    '```',
    '',
    files.length
      ? `@explore found each step in its own file: ${files.join(', ')}.`
      : '@explore found none of the steps.',
  ].join('\n');
}

function toolOutputs(request: RecordedRequest): string[] {
  return request.messages.filter((message) => message.role === 'tool').map((message) => String(message.content));
}
