import { z } from 'zod';
import { bashAccess } from '../tool-call/permissions.js';
import { defineTool } from '../tool-call/spec.js';

export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;
const SUMMARY_LENGTH = 80;

export const bash = defineTool({
  name: 'bash',
  description: `Run a shell command with bash and get back what it printed: stdout and stderr together, in the order they were written, plus the exit code when it is not 0.

Use bash for work only a program can do: running tests and builds, package managers, git, scripts, compilers. To look at or change files, use the file tools instead; they are faster and their results are easier to follow:
- read a file with read, not cat, head or tail
- find files with glob, not find or ls
- search contents with grep, not grep or rg run through bash
- change a file with edit, not sed, awk or echo >

How to write the command:
- Quote paths that contain spaces: cat "docs/release notes.md".
- Set workdir to run somewhere other than the project directory (a path relative to the project, or absolute). Prefer workdir to starting the command with cd.
- When one command needs another to succeed first, join them with && in one call: npm install && npm test. Commands that do not depend on each other can be separate bash calls in the same message.
- timeout is in milliseconds: ${BASH_DEFAULT_TIMEOUT_MS} (${BASH_DEFAULT_TIMEOUT_MS / 60_000} minutes) by default, at most ${BASH_MAX_TIMEOUT_MS} (${BASH_MAX_TIMEOUT_MS / 60_000} minutes). When time runs out the command and everything it started are stopped, and you get what it printed until then.
- Output longer than 2000 lines or 50 KiB is cut; the whole output is saved to a file, and the result says where, so you can read or search it.
- There is no terminal and stdin is empty, so nothing can answer a prompt. Do not start interactive programs (editors, pagers, git rebase -i, REPLs); use the flags that make a program run without asking (--yes, --no-pager, -m "message").
- A process started in the background with & keeps running after the call; send its output to a file (npm run dev > dev.log 2>&1 &) or it is cut off when the call ends.
- description says in 5-10 words what the command does, e.g. "Run the unit tests" or "Show uncommitted changes".
- Commands run in a sandbox: they can write only in the project and /tmp, cannot read credentials outside the project, and reach no network unless the configuration allows a host. The sandbox's /tmp belongs to this session's commands (kept between them) and is not the /tmp the read, write and edit tools see; keep files those tools need in the project. When the sandbox refuses something the command really needs, the result says so; then call bash again with sandbox set to false, and a person is asked to approve running it outside the sandbox.`,
  parameters: () =>
    z.object({
      command: z.string().describe('The command to run'),
      timeout: z
        .number()
        .int()
        .positive()
        .max(BASH_MAX_TIMEOUT_MS)
        .optional()
        .describe(
          `How long the command may run, in milliseconds (default ${BASH_DEFAULT_TIMEOUT_MS}, at most ${BASH_MAX_TIMEOUT_MS})`,
        ),
      workdir: z
        .string()
        .optional()
        .describe('The directory to run the command in (default: the project directory). Use this instead of cd'),
      description: z.string().describe('Clear, concise description of what this command does in 5-10 words'),
      sandbox: z
        .boolean()
        .optional()
        .describe(
          'Leave out: commands run in a sandbox. false runs it outside, after a person approves; only when the sandbox refused what the command needs',
        ),
    }),
  effect: 'mutating',
  summarize: (input) => {
    const [first, ...rest] = input.command.trim().split('\n');
    if (first.length > SUMMARY_LENGTH) return `${first.slice(0, SUMMARY_LENGTH - 1)}…`;
    return rest.length > 0 ? `${first} …` : first;
  },
  permissions: (input) => bashAccess(input.command),
});
