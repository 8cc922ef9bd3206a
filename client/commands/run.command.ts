import type { Command } from 'commander';
import { execute } from './execute.js';
import { promptFrom } from './prompt-argument.js';

export function registerRun(program: Command): void {
  program
    .command('run')
    .description('start a session and follow it until the agent answers')
    .argument('[prompt...]', 'what to ask (read from stdin when omitted)')
    .option('-a, --agent <name>', 'the agent to run (default: build)')
    .option(
      '-m, --model <provider/model>',
      'the model, e.g. anthropic/claude-sonnet-4-5 (default: the agent\'s, loom.json\'s "model", LOOM_MODEL, or the first provider key set)',
    )
    .option('-t, --title <title>', 'a title for the session')
    .option('-d, --dir <path>', 'the project directory (default: the current directory)')
    .option(
      '--max-tokens <n>',
      'a token budget for the session and all its subagents; runs stop at a step boundary when it is reached',
    )
    .option('--max-cost <usd>', "a budget in dollars for the session and all its subagents (needs the models' prices)")
    .option(
      '--timeout <duration>',
      'cancel the run past this long (90s, 30m, 2h, 1h30m; a bare number is seconds; 1s at least); its work is kept',
    )
    .option('--json', 'print one JSON object {sessionId, status, text, tokens} and nothing else')
    .option(
      '--detach',
      'do not wait for background subagents still running when the run ends (they need a worker: `loom worker`)',
    )
    .addHelpText(
      'after',
      `
Background subagents: when this command runs the worker itself (no \`loom worker\` is running), it
waits for the background subagents the run started and the answers their reports wake, printing
each; Ctrl-C (or --detach) leaves them, to go on once a worker runs.

The model: --model, else the agent's, else "model" in loom.json, else LOOM_MODEL, else the first
provider key set (OPENAI_API_KEY, ANTHROPIC_API_KEY, GOOGLE_GENERATIVE_AI_API_KEY, OPENROUTER_API_KEY).
  loom run -m anthropic/claude-sonnet-4-5 "fix the failing test"
  LOOM_MODEL=openai/gpt-4.1 loom run "what does this project do?"`,
    )
    .action(async (words: string[], options) =>
      execute(async (context) => (await import('./run.js')).runCommand(context, await promptFrom(words), options)),
    );
}
