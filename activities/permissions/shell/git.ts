import { GIT_COMMAND_OPTIONS, GIT_HIDDEN_OPTIONS, GIT_SETTING_OPTIONS } from '../../../core/rules/shell-commands.js';
import { configRuns, noRuns, settingOf, settingRuns, type GitSetting } from './git-settings.js';
import type { HiddenRuns } from './wrappers.js';
import { mayBeOption, type ShellWord } from './words.js';

/** git's own options that take the next word as their value. */
const VALUED = [
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--config-env',
  '--super-prefix',
  '--attr-source',
];
/** git's own options that name the folder it works in. */
const FOLDER_OPTIONS = ['-C', '--git-dir', '--work-tree'];

/** What git's own options (`git -C dir -c key=value log`) say, and where its command starts. */
interface GitOptions {
  settings: GitSetting[];
  folders: ShellWord[];
  unsupported: string[];
  command?: number;
}

function readGitOptions(words: ShellWord[]): GitOptions {
  const options: GitOptions = { settings: [], folders: [], unsupported: [] };
  for (let index = 1; index < words.length; index++) {
    const text = words[index].value;
    if (text === undefined) {
      options.unsupported.push(`\`git\` is given \`${words[index].raw}\`, only known when the line runs`);
      return options;
    }
    if (!text.startsWith('-')) return { ...options, command: index };
    const equals = text.startsWith('--') ? text.indexOf('=') : -1;
    const name = equals < 0 ? text : text.slice(0, equals);
    const value = equals >= 0 ? literal(text.slice(equals + 1)) : VALUED.includes(name) ? words[++index] : undefined;
    if (name === '-c') options.settings.push(settingOf(value));
    // The value comes from the environment, which the line may not show.
    if (name === '--config-env') options.settings.push({ key: settingOf(value).key });
    if (name === '--exec-path' && value)
      options.unsupported.push('`git --exec-path` runs git commands from a folder the line does not show');
    if (FOLDER_OPTIONS.includes(name) && value) options.folders.push(value);
  }
  return options;
}

/** The folders git's own options make it work in (`git -C ../other commit`). */
export function gitFolders(words: ShellWord[]): ShellWord[] {
  return words[0]?.value === 'git' ? readGitOptions(words).folders : [];
}

/**
 * What git runs of its own that a line shows: commands in settings (`git -c alias.x='!cmd' x`,
 * `git config core.pager …`), `rebase -x`, `bisect run`, `submodule foreach`, `clone -u`… Where
 * the line cannot show it (hooks from another folder, a value only known as the line runs), says why.
 */
export function gitRuns(words: ShellWord[]): HiddenRuns {
  if (words[0]?.value !== 'git') return noRuns();
  const options = readGitOptions(words);
  const runs = merge({ ...noRuns(), unsupported: options.unsupported }, ...options.settings.map(settingRuns));
  if (options.command === undefined) return runs;
  const command = words[options.command].value!;
  const args = words.slice(options.command + 1);
  switch (command) {
    case 'config':
      return merge(runs, configRuns(args));
    case 'bisect':
      return merge(runs, subcommandRuns('bisect', 'run', args, []));
    case 'submodule':
      return merge(runs, subcommandRuns('submodule', 'foreach', args, ['--recursive', '-q', '--quiet', '--cached']));
    default:
      return merge(runs, optionRuns(command, args));
  }
}

/** `git bisect run make test`, `git submodule foreach 'git pull'`: the words after `verb` run, one word as a script. */
function subcommandRuns(command: string, verb: string, args: ShellWord[], flags: string[]): HiddenRuns {
  const runs = noRuns();
  let index = 0;
  while (index < args.length && flags.includes(args[index].value ?? '')) index++;
  const word = args[index];
  if (word && word.value === undefined && mayBeOption(word))
    runs.unsupported.push(`\`git ${command}\` is given \`${word.raw}\`, only known when the line runs`);
  if (word?.value !== verb) return runs;
  index++;
  while (index < args.length && flags.includes(args[index].value ?? '')) index++;
  const run = args.slice(index);
  if (run.length > 1) runs.commands.push(run);
  else if (run.length === 1 && run[0].value === undefined)
    runs.unsupported.push(
      `the command given to \`git ${command} ${verb}\` (\`${run[0].raw}\`) is only known when the line runs`,
    );
  else if (run.length === 1) runs.scripts.push(run[0].value!);
  return runs;
}

/** The options of a git command that run commands, give settings or hide programs (core/rules/shell-commands.ts). */
function optionRuns(command: string, args: ShellWord[]): HiddenRuns {
  const runsCommand = GIT_COMMAND_OPTIONS[command];
  const setsConfig = GIT_SETTING_OPTIONS[command];
  const hides = GIT_HIDDEN_OPTIONS[command] ?? [];
  const pager = command === 'grep';
  const callbacks = command === 'filter-repo';
  if (!runsCommand && !setsConfig && !hides.length && !callbacks) return noRuns();
  const runs = noRuns();
  const run = (option: string, value: ShellWord | undefined) => {
    if (value?.value !== undefined) runs.scripts.push(value.value);
    else if (value)
      runs.unsupported.push(`the command given to \`git ${command} ${option}\` is only known when the line runs`);
  };
  for (let index = 0; index < args.length; index++) {
    const word = args[index];
    const text = word.value;
    if (text === undefined) {
      if (mayBeOption(word))
        runs.unsupported.push(
          `\`git ${command}\` is given \`${word.raw}\`, only known when the line runs, which may be an option that runs a command`,
        );
      continue;
    }
    if (text === '--') break;
    if (text.startsWith('--')) {
      const equals = text.indexOf('=');
      const name = equals < 0 ? text : text.slice(0, equals);
      const attached = equals < 0 ? undefined : literal(text.slice(equals + 1));
      if (runsCommand?.long.includes(name)) run(name, attached ?? args[++index]);
      else if (setsConfig?.long.includes(name)) merge(runs, settingRuns(settingOf(attached ?? args[++index])));
      else if (hides.includes(name))
        runs.unsupported.push(`\`git ${command} ${name}\` makes git run programs the line does not show`);
      else if (pager && name === '--open-files-in-pager' && attached) run(name, attached);
      else if (callbacks && /-callback$/.test(name))
        runs.unsupported.push(`\`git filter-repo ${name}\` runs Python code this check cannot follow`);
      continue;
    }
    if (!text.startsWith('-') || text === '-') continue;
    for (let at = 1; at < text.length; at++) {
      const letter = text[at];
      const rest = text.slice(at + 1);
      const value = () => (rest ? literal(rest) : args[++index]);
      if (runsCommand?.short?.includes(letter)) run(`-${letter}`, value());
      else if (setsConfig?.short?.includes(letter)) merge(runs, settingRuns(settingOf(value())));
      else if (pager && letter === 'O') run('-O', rest ? literal(rest) : undefined);
      else if (!runsCommand?.valued?.includes(letter)) continue;
      else if (!rest) index++;
      break;
    }
  }
  return runs;
}

/** Adds what the others found to `into`, and returns it. */
function merge(into: HiddenRuns, ...others: HiddenRuns[]): HiddenRuns {
  for (const other of others) {
    into.commands.push(...other.commands);
    into.scripts.push(...other.scripts);
    into.unsupported.push(...other.unsupported);
  }
  return into;
}

function literal(text: string): ShellWord {
  return { raw: text, value: text };
}
