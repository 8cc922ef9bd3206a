import type { RecordedRequest, ScriptRule } from '../model/scripted-model-script.js';

/** What the scripted model "says" in `npm run demo`. Answers use what the tools really returned. */
export const demoScript: ScriptRule[] = [
  {
    name: 'title',
    when: { lastUser: /^Generate a title for this conversation/ },
    reply: { text: 'Tour of the Loom project' },
  },
  {
    name: 'look around',
    when: { lastUser: 'What is this project', lastRole: 'user' },
    reply: {
      text: "I'll read the README and look for the tests.",
      chunkDelayMs: 25,
      chunkSize: 6,
      toolCalls: [
        { name: 'read', args: { filePath: 'README.md', limit: 20 } },
        { name: 'glob', args: { pattern: 'test/**/*.test.ts' } },
      ],
    },
  },
  {
    name: 'summarise',
    when: { lastUser: 'What is this project', lastRole: 'tool' },
    reply: (request) => {
      const globbed = toolOutputs(request)[1] ?? '';
      const shown = globbed.split('\n').filter((line) => line.endsWith('.test.ts'));
      // The glob tool shows the newest 100 and says how many there are in all.
      const count = /most recently modified of (\d+) files/.exec(globbed)?.[1] ?? shown.length;
      const folders = [...new Set(shown.map((path) => path.split('/test/')[1]?.split('/')[0]).filter(Boolean))];
      return {
        text:
          `This is Loom: it runs OpenCode-style agents as durable Temporal workflows. ` +
          `I found ${count} test files under test/, among them tests in ${folders.join(', ')}.`,
        chunkDelayMs: 25,
        chunkSize: 6,
      };
    },
  },
  {
    name: 'find the loop',
    when: { lastUser: 'loop', lastRole: 'user' },
    reply: {
      text: 'Let me search for it.',
      toolCalls: [{ name: 'grep', args: { pattern: 'export async function sessionWorkflow\\(', path: 'workflows' } }],
    },
  },
  {
    name: 'point at the loop',
    when: { lastUser: 'loop', lastRole: 'tool' },
    reply: (request) => {
      const match = /(\S+\.ts):\n\s+Line (\d+)/.exec(toolOutputs(request).at(-1) ?? '');
      const directory = /Working directory: (.+)/.exec(request.system)?.[1];
      const file =
        match && directory && match[1].startsWith(`${directory}/`) ? match[1].slice(directory.length + 1) : match?.[1];
      return {
        text: match ? `The loop is \`sessionWorkflow\` in ${file}:${match[2]}.` : 'I could not find the loop.',
        chunkDelayMs: 25,
        chunkSize: 6,
      };
    },
  },
];

function toolOutputs(request: RecordedRequest): string[] {
  return request.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
}
