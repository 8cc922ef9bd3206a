import type { RecordedRequest, ScriptRule } from './scripted-model-script.js';

/** What the scripted model "says" in `npm run demo`. Answers use what the tools really returned. */
export const demoScript: ScriptRule[] = [
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
      const tests =
        toolOutputs(request)[1]
          ?.split('\n')
          .filter((line) => line.endsWith('.test.ts')) ?? [];
      const folders = [...new Set(tests.map((path) => path.split('/test/')[1]?.split('/')[0]).filter(Boolean))];
      return {
        text:
          `This is Loom: it runs OpenCode-style agents as durable Temporal workflows. ` +
          `I found ${tests.length} test files under test/, grouped in ${folders.join(', ')}.`,
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
      toolCalls: [{ name: 'grep', args: { pattern: 'export async function session\\w+\\(', include: '*.ts' } }],
    },
  },
  {
    name: 'point at the loop',
    when: { lastUser: 'loop', lastRole: 'tool' },
    reply: (request) => {
      const match = /(\S+\.ts):\n\s+Line (\d+)/.exec(toolOutputs(request).at(-1) ?? '');
      return {
        text: match ? `The loop is \`sessionWorkflow\` in ${match[1]}:${match[2]}.` : 'I could not find the loop.',
        chunkDelayMs: 25,
        chunkSize: 6,
      };
    },
  },
];

function toolOutputs(request: RecordedRequest): string[] {
  return request.messages.filter((m) => m.role === 'tool').map((m) => String(m.content));
}
