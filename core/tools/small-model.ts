import { findTool } from './index.js';

/**
 * What a small model is told of tools: the few it uses well, each described in a sentence or two
 * with one example call, and only the parameters it needs (the others still work when it sends
 * them). The examples are in the JSON shape small models write when they do not call tools
 * natively, which Loom's tool-call repair turns into calls.
 */
export interface SmallModelTool {
  description: string;
  /** The parameters offered; the rest of the tool's parameters are left out of its schema. */
  parameters: string[];
}

const example = (name: string, args: Record<string, unknown>) => `Example: ${JSON.stringify({ name, arguments: args })}`;

export const SMALL_MODEL_TOOLS: Record<string, SmallModelTool> = {
  read: {
    description: `Read a file. Lines come numbered; the numbers are not part of the file.\n${example('read', { filePath: 'src/server.js' })}`,
    parameters: ['filePath'],
  },
  list: {
    description: `List the files and folders in a folder of the project.\n${example('list', { path: '.' })}`,
    parameters: ['path'],
  },
  glob: {
    description: `Find files whose paths match a pattern.\n${example('glob', { pattern: '**/*.js' })}`,
    parameters: ['pattern'],
  },
  grep: {
    description: `Find the lines of the project's files that match a regular expression.\n${example('grep', { pattern: 'TODO', include: '*.js' })}`,
    parameters: ['pattern', 'include'],
  },
  edit: {
    description: `Change a file you have read: oldString, copied exactly from the file, becomes newString.\n${example('edit', { filePath: 'src/server.js', oldString: 'const port = 80;', newString: 'const port = 8080;' })}`,
    parameters: ['filePath', 'oldString', 'newString'],
  },
  write: {
    description: `Write a whole file, creating it or replacing what it held.\n${example('write', { filePath: 'notes.txt', content: 'hello\\n' })}`,
    parameters: ['filePath', 'content'],
  },
  bash: {
    description: `Run a shell command in the project folder, such as the tests; you get what it printed.\n${example('bash', { command: 'npm test', description: 'Run the tests' })}`,
    parameters: ['command', 'description'],
  },
  task: {
    description: `Hand a task to a subagent, which does it on its own and answers you.\nAgents:\n{agents}\n${example('task', {
      description: 'Find the logging setup',
      prompt: 'Find where the server sets up its logging, and name the file and line.',
      subagent_type: 'explore',
    })}`,
    parameters: ['description', 'prompt', 'subagent_type'],
  },
};

/**
 * The tools offered to a small model, in their order: Loom's tools it is told about here, and
 * every tool of the configured MCP servers (a person chose those).
 */
export function smallModelToolNames(offered: readonly string[]): string[] {
  return offered.filter((name) => Object.hasOwn(SMALL_MODEL_TOOLS, name) || !findTool(name));
}
