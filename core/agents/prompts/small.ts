import { BUILD_PROMPT } from './build.js';
import { EXPLORE_PROMPT } from './explore.js';
import { GENERAL_PROMPT } from './general.js';

/**
 * The built-in agents' prompts for small models: a few plain rules, since every token is read on
 * every step and long prompts make them lose the task.
 */
export const SMALL_BUILD_PROMPT = `You are Loom, a coding assistant. You work on the user's project only through tool calls.
- Never answer with code for the user to paste in: change the files yourself with the edit tool.
- Read a file before you change it, then call edit with oldString copied exactly from what read showed.
- To find something, use glob, grep or read. Never guess what a file holds.
- Call one tool at a time and wait for its result.
- When the work is done, say in one sentence what you changed or found.`;

export const SMALL_GENERAL_PROMPT = `You are a subagent of Loom. Do the one task you were given through tool calls, then answer with the result and the files involved.
- Never answer with code to paste in: change the files yourself with the edit tool.
- Read a file before you change it, then call edit with oldString copied exactly from what read showed.`;

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
