import type { ShellWord } from './words.js';

/** What a command runs besides itself. */
export type Unwrapped =
  | { kind: 'none' }
  /** The command it runs: these words, in an environment these `NAME=value` words set (`env`, `sudo`). */
  | { kind: 'command'; words: ShellWord[]; assignments?: ShellWord[] }
  /** A script it runs, as shell text. */
  | { kind: 'script'; script: string }
  /** It runs something the line does not show. */
  | { kind: 'unsupported'; reason: string };

/** What a command has run besides its arguments, found in its options or settings (`git rebase -x 'npm test'`). */
export interface HiddenRuns {
  /** Commands it runs, as words. */
  commands: ShellWord[][];
  /** Scripts it runs, as shell text. */
  scripts: string[];
  /** Why what it runs cannot be known before the line runs. */
  unsupported: string[];
}

/** How a wrapper's options read: which take a value as the next word. */
interface Wrapper {
  /** Short options that take a value (`-u root`, or attached: `-uroot`). */
  valued: string;
  /** Long options that take a value when it is not attached with `=`. */
  long?: string[];
  /** Words after the options that are not the command (`timeout`'s duration). */
  operands?: number;
  /** `NAME=value` words before the command set its environment (env, sudo). */
  assignments?: boolean;
  /** Options after which nothing is run (`command -v x` only prints where x is). */
  noRun?: RegExp;
  /** Options this check cannot follow (`env -S` splits a string into a command). */
  unsupported?: RegExp;
}

const WRAPPERS: Record<string, Wrapper> = {
  env: {
    valued: 'uCS',
    long: ['--unset', '--chdir', '--split-string'],
    assignments: true,
    unsupported: /^(-[^-]*[CS]|--chdir|--split-string)/,
  },
  sudo: {
    valued: 'ughpCDrtUT',
    long: [
      '--user',
      '--group',
      '--host',
      '--prompt',
      '--close-from',
      '--chdir',
      '--role',
      '--type',
      '--other-user',
      '--command-timeout',
    ],
    assignments: true,
    noRun: /^(-[^-]*[elvVK]|--(edit|list|validate|version|help|remove-timestamp|reset-timestamp)$)/,
  },
  doas: { valued: 'uC', noRun: /^-[^-]*C/ },
  nice: { valued: 'n', long: ['--adjustment'] },
  timeout: { valued: 'sk', long: ['--signal', '--kill-after'], operands: 1 },
  exec: { valued: 'a' },
  nohup: { valued: '' },
  coproc: { valued: '' },
  builtin: { valued: '' },
  command: { valued: '', noRun: /^-[^-]*[vV]/ },
  time: { valued: 'fo', long: ['--format', '--output'] },
  stdbuf: { valued: 'ioe', long: ['--input', '--output', '--error'] },
  xargs: {
    valued: 'adEeIiLlnPs',
    long: [
      '--arg-file',
      '--delimiter',
      '--eof',
      '--replace',
      '--max-lines',
      '--max-args',
      '--max-procs',
      '--max-chars',
      '--process-slot-var',
    ],
  },
};

/** Options of `xargs` whose value is optional and only ever attached (`-i`, `-l`, `-e`). */
const ATTACHED_ONLY: Record<string, string> = { xargs: 'ile' };

const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash']);

/** The command or script `words` run through a wrapper, if they are one. */
export function unwrap(words: ShellWord[]): Unwrapped {
  const name = words[0]?.value;
  if (name === undefined) return { kind: 'none' };
  if (name === 'eval')
    return { kind: 'unsupported', reason: '`eval` runs text that is only put together when the line runs' };
  if (name === 'trap') return trapAction(words.slice(1));
  // `/usr/bin/rm x` is `rm x` to a rule on `rm`.
  const bin = /^\/(?:usr\/)?(?:local\/)?s?bin\/([^/]+)$/.exec(name);
  if (bin) return { kind: 'command', words: [{ raw: bin[1], value: bin[1] }, ...words.slice(1)] };
  if (SHELLS.has(name)) return shellScript(name, words.slice(1));
  const wrapper = WRAPPERS[name];
  return wrapper ? wrapped(name, wrapper, words.slice(1)) : { kind: 'none' };
}

function wrapped(name: string, wrapper: Wrapper, args: ShellWord[]): Unwrapped {
  let index = 0;
  while (index < args.length) {
    const word = args[index].value;
    if (word === undefined)
      return {
        kind: 'unsupported',
        reason: `\`${name}\` is given \`${args[index].raw}\`, only known when the line runs`,
      };
    if (word === '--') {
      index++;
      break;
    }
    if (!word.startsWith('-') || word === '-') break;
    if (wrapper.unsupported?.test(word))
      return { kind: 'unsupported', reason: `\`${name} ${word}\` runs a command this check cannot follow` };
    if (wrapper.noRun?.test(word)) return { kind: 'none' };
    index += takesValue(name, wrapper, word) ? 2 : 1;
  }
  const start = index;
  if (wrapper.assignments)
    while (index < args.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[index].value ?? '')) index++;
  const assignments = args.slice(start, index);
  // `nice -10 cmd`: an old-style adjustment is an option too, handled above; `timeout 5 cmd` has its duration here.
  index += wrapper.operands ?? 0;
  const rest = args.slice(index);
  return rest.length ? { kind: 'command', words: rest, assignments } : { kind: 'none' };
}

/** Whether `option` takes the next word as its value (`-u root`), not attached (`-uroot`, `--user=root`). */
function takesValue(name: string, wrapper: Wrapper, option: string): boolean {
  if (option.startsWith('--')) return !option.includes('=') && (wrapper.long ?? []).includes(option);
  const letters = option.slice(1);
  for (let at = 0; at < letters.length; at++) {
    if ((ATTACHED_ONLY[name] ?? '').includes(letters[at])) return false;
    if (wrapper.valued.includes(letters[at])) return at === letters.length - 1;
  }
  return false;
}

/**
 * `bash -c 'script'`: the script is what runs. A shell reading its
 * commands from stdin runs what the line does not show.
 */
function shellScript(name: string, args: ShellWord[]): Unwrapped {
  let command = false;
  let stdin = false;
  let index = 0;
  while (index < args.length) {
    const word = args[index].value;
    if (word === undefined) break;
    if (word === '--' || word === '-') {
      index++;
      break;
    }
    if (!/^[-+]./.test(word)) break;
    if (word.startsWith('--')) {
      index += ['--rcfile', '--init-file'].includes(word) ? 2 : 1;
      continue;
    }
    if (word.slice(1).includes('c')) command = true;
    if (word.slice(1).includes('s')) stdin = true;
    // `-o pipefail`, `-O extglob`: the option's name is the next word.
    index += /[oO]$/.test(word) ? 2 : 1;
  }
  const operand = args[index];
  if (command) {
    if (!operand) return { kind: 'unsupported', reason: `\`${name} -c\` is given no script` };
    if (operand.value === undefined)
      return {
        kind: 'unsupported',
        reason: `the script given to \`${name} -c\` (\`${operand.raw}\`) is only known when the line runs`,
      };
    return { kind: 'script', script: operand.value };
  }
  if (stdin || !operand)
    return {
      kind: 'unsupported',
      reason: `\`${name}\` reads the commands it runs from its input, which the line does not show`,
    };
  return { kind: 'none' };
}

/** `trap 'rm -f tmp' EXIT`: the action is a script the shell runs later. */
function trapAction(args: ShellWord[]): Unwrapped {
  const first = args[0];
  if (!first || first.value === '-' || first.value === '' || /^-[lp]/.test(first.value ?? '')) return { kind: 'none' };
  const action = first.value === '--' ? args[1] : first;
  if (!action || action.value === '-') return { kind: 'none' };
  if (action.value === undefined)
    return {
      kind: 'unsupported',
      reason: `the action given to \`trap\` (\`${action.raw}\`) is only known when the line runs`,
    };
  return { kind: 'script', script: action.value };
}

/** The commands `find` runs for what it finds: `-exec cmd {} ;`, `-execdir`, `-ok`, `-okdir`. */
export function findCommands(words: ShellWord[]): ShellWord[][] {
  if (words[0]?.value !== 'find') return [];
  const found: ShellWord[][] = [];
  for (let index = 1; index < words.length; index++) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(words[index].value ?? '')) continue;
    const start = index + 1;
    let end = start;
    while (
      end < words.length &&
      words[end].value !== ';' &&
      !(words[end].value === '+' && words[end - 1]?.value === '{}')
    )
      end++;
    if (end > start) found.push(words.slice(start, end));
    index = end;
  }
  return found;
}
