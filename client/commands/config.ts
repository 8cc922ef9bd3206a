import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import pc from 'picocolors';
import type { ConfigFilesRecord } from '../../activities/config/files.js';
import type { ClientContext } from '../context.js';
import { confirmConfig, filesForPerson, reviewConfig, type WaitingConfigChange } from '../services/config-review.js';
import { ConfigChangedAgainError } from '../../activities/config/trust.js';
import { InputError } from '../input-error.js';

/**
 * `loom config`: whether the project's config files are the ones a person trusts, and the change an
 * agent's work made that waits for a person, with its diff.
 */
export async function configStatusCommand(
  context: ClientContext,
  options: { dir?: string; json?: boolean },
): Promise<number> {
  const directory = resolve(options.dir ?? process.cwd());
  const { standing, waiting } = await reviewConfig(context.store, directory, context.env);
  if (options.json) {
    const trusted = standing.trust ? { id: standing.trust.trustedId, time: standing.trust.time } : null;
    process.stdout.write(
      `${JSON.stringify({ directory, current: standing.current.id, trusted, waiting: waiting ?? null })}\n`,
    );
    return 0;
  }
  if (waiting) {
    process.stdout.write(`${describeWaiting(waiting)}\n\n${colourDiff(waiting.diff)}\n`);
    process.stdout.write(`Use it: loom config trust${options.dir ? ` --dir ${directory}` : ''}\n`);
    return 0;
  }
  const state = !standing.trust
    ? 'no run here yet: the first run trusts the files as they are'
    : standing.changed.length
      ? `changed since the last run (${standing.changed.length} ${standing.changed.length === 1 ? 'file' : 'files'}): the next run you start takes them`
      : `trusted as they are (${Object.keys(standing.current.record.files).length} config files read)`;
  process.stdout.write(`Configuration of ${directory}: ${state}\n`);
  return 0;
}

/** `loom config trust`: a person confirms the project's config files as they are now. */
export async function configTrustCommand(
  context: ClientContext,
  options: { dir?: string; yes?: boolean },
): Promise<number> {
  const directory = resolve(options.dir ?? process.cwd());
  const { waiting } = await reviewConfig(context.store, directory, context.env);
  if (waiting && !options.yes) {
    context.report(`${describeWaiting(waiting)}\n\n${colourDiff(waiting.diff)}`);
    if (!context.interactive) {
      context.report('Not trusted: review the change above, then run `loom config trust --yes`.');
      return 1;
    }
    if (!(await askYes('Trust these files and use them from the next run on? [y/N] '))) {
      context.report('Not trusted: runs keep the configuration you last trusted.');
      return 1;
    }
  }
  const trusted = await trustChecked(() => confirmConfig(context.store, directory, context.env, waiting?.id));
  context.report(
    `Trusted the configuration of ${directory} (${Object.keys(trusted.record.files).length} config files read).`,
  );
  return 0;
}

/**
 * Before a person's run in `directory`: a change an agent's work made to the config files is said,
 * and in a terminal the person may take it; otherwise the run uses the files they last trusted.
 * Returns the config files the run will use (so the CLI checks agents and models against them).
 */
export async function confirmWaitingConfig(
  context: ClientContext,
  directory: string,
  options: { json?: boolean } = {},
): Promise<ConfigFilesRecord> {
  const { standing, waiting } = await reviewConfig(context.store, directory, context.env);
  if (!waiting) return filesForPerson(standing);
  context.report(describeWaiting(waiting));
  if (!options.json && context.interactive) {
    context.report(colourDiff(waiting.diff));
    if (await askYes('Use the changed configuration for this run and the ones after it? [y/N] ')) {
      return (await trustChecked(() => confirmConfig(context.store, directory, context.env, waiting.id))).record;
    }
  }
  context.report(
    `This run uses the configuration you last trusted. Review the change with \`loom config\`; use it with \`loom config trust\`.`,
  );
  return filesForPerson(standing);
}

export function describeWaiting(waiting: WaitingConfigChange): string {
  const who = waiting.sessionId ? ` during session ${waiting.sessionId}` : " during an agent's work";
  const lines = [
    `${pc.yellow('⚠')} Loom's configuration in ${waiting.directory} changed${who}, and no run uses it until you confirm it:`,
    ...waiting.files.map((file) => `  ${file}`),
  ];
  if (waiting.notable.length) lines.push('  It sets:', ...waiting.notable.map((line) => `    ${pc.bold(line)}`));
  return lines.join('\n');
}

function colourDiff(diff: string): string {
  return diff
    .split('\n')
    .map((line) =>
      line.startsWith('+') && !line.startsWith('+++')
        ? pc.green(line)
        : line.startsWith('-') && !line.startsWith('---')
          ? pc.red(line)
          : line,
    )
    .join('\n');
}

async function askYes(question: string): Promise<boolean> {
  const prompt = createInterface({
    input: process.stdin,
    output: process.stderr,
    terminal: Boolean(process.stdin.isTTY),
  });
  try {
    return /^y(es)?$/i.test((await prompt.question(question)).trim());
  } finally {
    prompt.close();
  }
}

/** A confirmation of files that changed again since they were shown is the person's error to see. */
async function trustChecked<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ConfigChangedAgainError) throw new InputError(error.message);
    throw error;
  }
}
