import pc from 'picocolors';
import type { ClientContext } from '../context.js';
import { plural } from '../render/quantities.js';
import type { RunOutcome } from '../follow/watch-run.js';

/** The last word on a run: a JSON object on stdout, or a status line on stderr. Returns the exit code. */
export function printOutcome(context: ClientContext, outcome: RunOutcome, json: boolean): number {
  const exitCode = outcome.status === 'completed' ? 0 : outcome.status === 'failed' ? 1 : 130;
  if (json) {
    const { sessionId, status, text, tokens, error } = outcome;
    process.stdout.write(`${JSON.stringify({ sessionId, status, text, tokens, ...(error ? { error } : {}) })}\n`);
    return exitCode;
  }
  const total = outcome.tokens.input + outcome.tokens.output + outcome.tokens.cache.read;
  const facts = [
    outcome.sessionId,
    outcome.status,
    outcome.steps ? plural(outcome.steps, 'step') : undefined,
    plural(total, 'token'),
  ];
  const line = facts.filter(Boolean).join(' · ');
  if (outcome.status === 'completed') context.report(pc.dim(`\n● ${line}`));
  else if (outcome.status === 'failed')
    context.report(
      pc.red(`\n✗ ${line}${outcome.errorShown ? '' : `\n  ${outcome.error?.name}: ${outcome.error?.message}`}`),
    );
  else if (outcome.status === 'cancelled') context.report(pc.yellow(`\n■ ${line}`));
  // A run left because the server went away was explained when it happened.
  else if (!outcome.error) context.report(`\n${leftRunning(context, outcome.sessionId)}`);
  return exitCode;
}

/** A run the command stops following, and whether a worker is left to run it. */
export function leftRunning(context: ClientContext, sessionId: string, what = ''): string {
  const show = `\`loom show ${sessionId}\` shows its progress`;
  return context.hasInProcessWorker
    ? `Left ${sessionId} running${what}: no worker will run it after this command; start \`loom worker\` (${show}).`
    : `Left ${sessionId} running${what} in the worker serving task queue "${context.settings.taskQueue}". ${show}.`;
}
