import { COMMAND_VARIABLES, HIDDEN_VARIABLES } from '../../../core/rules/shell-commands.js';
import type { HiddenRuns } from './wrappers.js';
import type { ShellWord } from './words.js';

/**
 * What setting an environment variable makes the commands after it run (`GIT_SSH_COMMAND='…'
 * git fetch`, `export GIT_PAGER=…`): the command it holds, checked as a script, or why that
 * cannot be known. `value` is `undefined` when only known as the line runs.
 */
export function assignmentRuns(name: string, value: ShellWord | undefined): HiddenRuns {
  const runs: HiddenRuns = { commands: [], scripts: [], unsupported: [] };
  if (COMMAND_VARIABLES.has(name)) {
    const text = value?.value;
    if (text === undefined) runs.unsupported.push(`the command in \`${name}\` is only known when the line runs`);
    else if (text !== '' && !(name.endsWith('PAGER') && text === 'cat')) runs.scripts.push(text);
  } else if (HIDDEN_VARIABLES.test(name) && value?.value !== '/dev/null') {
    runs.unsupported.push(`\`${name}\` hands git settings or programs the line does not show`);
  }
  return runs;
}

/** `NAME=value` as `env` and `sudo` take it. */
export function assignmentOf(word: ShellWord): { name: string; value?: ShellWord } | undefined {
  const name = /^[A-Za-z_][A-Za-z0-9_]*(?==)/.exec(word.value ?? word.raw)?.[0];
  if (name === undefined) return undefined;
  if (word.value === undefined) return { name };
  const value = word.value.slice(name.length + 1);
  return { name, value: { raw: value, value } };
}
