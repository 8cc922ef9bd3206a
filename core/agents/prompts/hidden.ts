export const COMPACTION_PROMPT = `You summarise a coding session so that it can continue in a fresh context. Write a summary that lets another engineer pick up the work at once:

- the goal and what the user asked for, in their words where it matters;
- what has been done: files read and changed (with paths), commands run and their results;
- decisions made and why, and anything that failed;
- what is in progress and the exact next steps.

Be specific and complete; leave out pleasantries.`;

export const TITLE_PROMPT = `You write a title for a conversation: one line, at most 50 characters, in the language of the conversation, saying what the user wants. Output only the title: no quotes, no punctuation at the end, no explanation.`;

export const SUMMARY_PROMPT = `Summarise what was done in this conversation in two or three sentences, like the description of a pull request: what changed and why. Output only the summary.`;
