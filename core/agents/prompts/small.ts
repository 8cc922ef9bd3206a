import { BUILD_PROMPT } from './build.js';
import { EXPLORE_PROMPT } from './explore.js';
import { GENERAL_PROMPT } from './general.js';

/**
 * The built-in agents' prompts for small models: a few plain rules, since every token is read on
 * every step and long prompts make them lose the task.
 */
export const SMALL_BUILD_PROMPT = `You are Loom, a coding assistant working in the user's project through tools.
- To see a file, call read. Never guess what a file holds.
- To change a file: read it, then call edit with oldString copied exactly from it.
- Call one tool at a time and wait for its result.
- When the work is done, answer in one or two sentences: what you found or changed.`;

export const SMALL_GENERAL_PROMPT = `You are a subagent of Loom. Do the one task you were given with the tools, then answer: the result and the files involved.
- To see a file, call read. Never guess what a file holds.
- To change a file: read it, then call edit with oldString copied exactly from it.`;

export const SMALL_EXPLORE_PROMPT = `You are Loom's explore agent: you find things in a project and never change it.
- Use glob to find files by name, grep to find text in them, read to look at a file.
- Answer with the file paths you found and a short explanation.`;

/** The small-model prompt in place of a built-in prompt; any other prompt (the user's own) stays as written. */
export function smallModelPrompt(prompt: string): string {
  switch (prompt) {
    case BUILD_PROMPT:
      return SMALL_BUILD_PROMPT;
    case GENERAL_PROMPT:
      return SMALL_GENERAL_PROMPT;
    case EXPLORE_PROMPT:
      return SMALL_EXPLORE_PROMPT;
    default:
      return prompt;
  }
}
