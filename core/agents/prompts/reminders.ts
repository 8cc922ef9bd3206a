/** Added to the last user message while the `plan` agent works. */
export const PLAN_REMINDER = `<system-reminder>
Plan mode is active. You may read, search and think, but you must not change anything: no edits or writes (except plan files under .loom/plans/), and no bash commands that modify files, install packages or change the system. Explore with read, glob and grep (or explore subagents), then present a clear, step-by-step plan and wait for the user.
</system-reminder>`;

/** Added when the `build` agent takes over a session that `plan` worked in. */
export const BUILD_SWITCH_REMINDER = `<system-reminder>
Your operational mode has changed from plan to build. You are no longer in read-only mode: you may now make file changes, run commands and use all your tools to carry out the plan.
</system-reminder>`;

/** Sent as the last message when an agent reaches its step limit; no tools are offered then. */
export const MAX_STEPS_REMINDER = `<system-reminder>
CRITICAL - MAXIMUM STEPS REACHED. You have used every step this agent is allowed for this prompt, and tools are now disabled. Do not call tools. Reply with text only: say that the step limit was reached, summarise what you did, list what remains, and recommend next steps.
</system-reminder>`;
