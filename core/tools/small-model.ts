import { findTool } from './index.js';

/**
 * What a small model is told of tools: the few it uses well, each described in a sentence or two
 * with one example call, and only the parameters it needs (the others still work when it sends
 * them). The examples are in the JSON shape small models write when they do not call tools
 * natively, which Loom's tool-call repair turns into calls. A small model copies an example's
 * values when it knows no better, so they name a file the project really has and spell out, in
 * angle brackets, what is for the model to fill in, rather than inventing plausible content.
 */
export interface SmallModelTool {
  /** The description, with `file` a file of the project's for the example. */
  description: (file: string) => string;
  /** The parameters offered; the rest of the tool's parameters are left out of its schema. */
  parameters: string[];
}

const example = (name: string, args: Record<string, unknown>) =>
  `Example: ${JSON.stringify({ name, arguments: args })}`;

export const SMALL_MODEL_TOOLS: Record<string, SmallModelTool> = {
  read: {
    description: (file) =>
      `Read a file. Lines come numbered; the numbers are not part of the file.\n${example('read', { filePath: file })}`,
    parameters: ['filePath'],
  },
  list: {
    description: () => `List the files and folders in a folder of the project.\n${example('list', { path: '.' })}`,
    parameters: ['path'],
  },
  glob: {
    description: () => `Find files whose paths match a pattern.\n${example('glob', { pattern: '**/<name>' })}`,
    parameters: ['pattern'],
  },
  grep: {
    description: () =>
      `Find the lines of the project's files that contain a word or match a regular expression.\n${example('grep', { pattern: '<word>' })}`,
    parameters: ['pattern', 'include'],
  },
  edit: {
    description: (file) =>
      `Change a file: oldString, copied exactly from the file as read showed it, becomes newString.\n${example('edit', { filePath: file, oldString: '<lines copied from the file>', newString: '<the lines to put in their place>' })}`,
    parameters: ['filePath', 'oldString', 'newString'],
  },
  write: {
    description: () =>
      `Write a whole file, creating it or replacing what it held.\n${example('write', { filePath: '<path of the file>', content: '<all of its text>' })}`,
    parameters: ['filePath', 'content'],
  },
  bash: {
    description: () =>
      `Run a shell command in the project folder, such as the tests; you get what it printed.\n${example('bash', { command: '<the command>', description: '<what it does>' })}`,
    parameters: ['command', 'description'],
  },
  task: {
    description: () =>
      `Hand a task to a subagent, which does it on its own and answers you.\nAgents:\n{agents}\n${example('task', {
        description: '<a few words>',
        prompt: '<the whole task, for someone who has seen nothing of this conversation>',
        subagent_type: 'explore',
      })}`,
    parameters: ['description', 'prompt', 'subagent_type'],
  },
};

/** A file of the project to name in examples: the first file the project folder holds. */
export function sampleFile(entries: readonly string[] | undefined): string {
  return entries?.find((entry) => !entry.endsWith('/') && !entry.startsWith('… ')) ?? 'README.md';
}

/**
 * The tools offered to a small model, in their order: Loom's tools it is told about here, and
 * every tool of the configured MCP servers (a person chose those).
 */
export function smallModelToolNames(offered: readonly string[]): string[] {
  return offered.filter((name) => Object.hasOwn(SMALL_MODEL_TOOLS, name) || !findTool(name));
}
