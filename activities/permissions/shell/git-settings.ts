import { gitSettingKind } from '../../../core/rules/shell-commands.js';
import type { HiddenRuns } from './wrappers.js';
import type { ShellWord } from './words.js';

/** A git setting a line gives: its key and value; either `undefined` when only known as the line runs. */
export interface GitSetting {
  key?: string;
  value?: ShellWord;
}

const BOOLEAN = /^(true|false|yes|no|on|off|1|0)$/i;

export const noRuns = (): HiddenRuns => ({ commands: [], scripts: [], unsupported: [] });

/** `key=value` as `git -c` takes it. */
export function settingOf(word: ShellWord | undefined): GitSetting {
  if (!word) return {};
  if (word.value !== undefined) {
    const equals = word.value.indexOf('=');
    return equals < 0
      ? { key: word.value, value: { raw: '', value: '' } }
      : { key: word.value.slice(0, equals), value: literal(word.value.slice(equals + 1)) };
  }
  const key = /^"?([^=$`"'\\]+)=/.exec(word.raw)?.[1];
  return key ? { key } : {};
}

/** What a setting makes git run: its command, checked as a script, or why that cannot be known. */
export function settingRuns({ key, value }: GitSetting): HiddenRuns {
  const runs = noRuns();
  if (key === undefined) {
    runs.unsupported.push('git is given a setting only known when the line runs');
    return runs;
  }
  const kind = gitSettingKind(key);
  if (kind === 'hidden' && !(key.toLowerCase().startsWith('protocol.') && value?.value === 'never')) {
    runs.unsupported.push(`the git setting \`${key}\` makes git run programs the line does not show`);
  } else if (kind === 'command' && value?.value === undefined) {
    runs.unsupported.push(`the command the git setting \`${key}\` runs is only known when the line runs`);
  } else if (kind === 'command') {
    const script = commandOf(key.toLowerCase(), value!.value!);
    if (script) runs.scripts.push(script);
  }
  return runs;
}

/** The shell text a setting runs; `undefined` when its value runs nothing (`pager.log=false`, `core.pager=cat`). */
function commandOf(key: string, value: string): string | undefined {
  if (value === '') return undefined;
  if (key.startsWith('alias.')) return value.startsWith('!') ? value.slice(1) : `git ${value}`;
  if (key.startsWith('submodule.')) return value.startsWith('!') ? value.slice(1) : undefined;
  if (key.startsWith('credential.'))
    return value.startsWith('!') ? value.slice(1) : value.includes('/') ? value : `git credential-${value}`;
  if ((key === 'core.fsmonitor' || key.startsWith('pager.')) && BOOLEAN.test(value)) return undefined;
  if (key === 'core.pager' && value === 'cat') return undefined;
  return value;
}

/**
 * `git config` persists a setting, which git runs later under any git command a rule allows: a
 * command setting is checked now, as if it ran (`git config alias.t '!npm test'`).
 */
export function configRuns(args: ShellWord[]): HiddenRuns {
  const positional: ShellWord[] = [];
  let reading = false;
  for (let index = 0; index < args.length; index++) {
    const text = args[index].value;
    if (text === undefined || !text.startsWith('-') || text === '-') positional.push(args[index]);
    else if (/^(-f|--file|--blob|-t|--type|--default|--comment|--value|--url)$/.test(text)) index++;
    else if (
      /^(-l|-e|--list|--edit|--get.*|--unset.*|--remove-section|--rename-section|--show-.*|--name-only)$/.test(text)
    )
      reading = true;
  }
  const first = positional[0]?.value;
  const sets =
    first === 'set'
      ? positional.slice(1)
      : ['get', 'list', 'unset', 'rename-section', 'remove-section', 'edit'].includes(first ?? '') || reading
        ? []
        : positional;
  const [key, value] = sets;
  if (!key || !value) return noRuns();
  if (key.value === undefined)
    return {
      ...noRuns(),
      unsupported: [`\`git config\` sets \`${key.raw}\`, a setting only known when the line runs`],
    };
  return settingRuns({ key: key.value, value });
}

function literal(text: string): ShellWord {
  return { raw: text, value: text };
}
