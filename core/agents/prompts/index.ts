export { BUILD_PROMPT } from './build.js';
export { EXPLORE_PROMPT } from './explore.js';
export { GENERAL_PROMPT } from './general.js';
export { COMPACTION_PROMPT, SUMMARY_PROMPT, TITLE_PROMPT } from './hidden.js';
export { BUILD_SWITCH_REMINDER, MAX_STEPS_REMINDER, PLAN_REMINDER } from './reminders.js';
export { smallModelPrompt } from './small.js';
