import { createLoomTestEnv, type LoomTestEnv } from './loom-env.js';
import type { ScriptedModel } from '../model/scripted-model.js';

// What the CLI tests and the session loop test share: a small project, and a conversation about it.

/** A project of a README and two TypeScript files. */
export function createCliEnv(): Promise<LoomTestEnv> {
  return createLoomTestEnv({
    files: {
      'README.md': '# Demo\nhello from the readme\n',
      'src/a.ts': 'export const a = 1;\n',
      'src/b.ts': 'export const b = 2;\n',
    },
  });
}

/** The model reads the README and globs the sources, then answers; a follow-up names the file that exports b. */
export const exploreScript = (model: ScriptedModel) =>
  model.setScript([
    {
      name: 'explore',
      when: { lastUser: 'What is in this project?', lastRole: 'user' },
      reply: {
        text: 'Let me look.',
        toolCalls: [
          { name: 'read', args: { filePath: 'README.md' } },
          { name: 'glob', args: { pattern: 'src/**/*.ts' } },
        ],
      },
    },
    {
      name: 'answer',
      when: { lastUser: 'What is in this project?', lastRole: 'tool' },
      reply: { text: 'A demo with two TypeScript files.' },
    },
    { name: 'follow-up', when: { lastUser: 'Which one exports b?' }, reply: { text: 'src/b.ts exports b.' } },
  ]);
