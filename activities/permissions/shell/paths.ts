import {
  COPYING_COMMANDS,
  FOLDER_COMMANDS,
  PATH_COMMANDS,
  WRITING_COMMANDS,
} from '../../../core/rules/shell-commands.js';
import type { ShellRedirect } from './commands.js';
import { editedFiles } from './edited-files.js';
import { gitFolders } from './git.js';
import type { PathWord, ShellWord } from './words.js';

/** Redirections that open a file for reading. */
const READING = new Set(['<', '<>']);

/** Places a redirection may go that are no folder of anyone's. */
const DEVICES = /^\/dev\/(null|zero|u?random|stdin|stdout|stderr|tty|fd\/\d+)$/;

/**
 * The words of a command (name first) that name paths it reads, writes or works in, and which it
 * writes: the arguments of path commands (options left out, `--x=/path` values kept), the files
 * editors rewrite (`sed -i`), `dd`'s `if=` and `of=`, `git -C`'s folder, and a bare `cd`, which
 * goes home.
 */
export function pathWords(words: ShellWord[]): PathWord[] {
  const name = words[0]?.value;
  if (name === undefined) return [];
  if (name === 'dd') return ddOperands(words.slice(1));
  if (name === 'git') return gitFolders(words).map((word) => ({ word, folder: true, write: true }));
  if (!PATH_COMMANDS.has(name)) return editedFiles(words);
  const args = words.slice(1);
  // `install -d a b` makes folders; `find -delete` removes what it finds.
  const makesFolders = name === 'install' && args.some((word) => /^-[^-]*d/.test(word.value ?? ''));
  const folder = FOLDER_COMMANDS.has(name) || makesFolders;
  const writesAll =
    WRITING_COMMANDS.has(name) || makesFolders || (name === 'find' && args.some((word) => word.value === '-delete'));
  const paths: ShellWord[] = [];
  let target: ShellWord | undefined;
  let options = true;
  for (const [index, word] of args.entries()) {
    const value = word.value;
    if (options && value === '--') options = false;
    else if (options && value?.startsWith('--') && value.includes('=')) {
      const attached = value.slice(value.indexOf('=') + 1);
      const isTarget = value.startsWith('--target-directory=');
      if (attached.includes('/') || isTarget) paths.push({ raw: attached, value: attached });
      if (isTarget) target = paths.at(-1);
    } else if (options && value?.startsWith('-') && value !== '-') continue;
    else if (value !== '-' && !(name === 'rsync' && isRemote(value))) {
      paths.push(word);
      const option = args[index - 1]?.value;
      if (options && (option === '-t' || option === '--target-directory')) target = word;
    }
  }
  // chmod's mode and chown's owner come first (`chmod 755 x`), unless given by --reference.
  const modeFirst =
    (name === 'chmod' || name === 'chown' || name === 'chgrp') &&
    !args.some((word) => word.value?.startsWith('--reference'));
  const named = modeFirst ? paths.slice(1) : paths;
  if ((name === 'cd' || name === 'pushd') && named.length === 0)
    return [{ word: { raw: '~', value: '~' }, folder: true, write: true }];
  const destination =
    COPYING_COMMANDS.has(name) && !makesFolders ? (target ?? (named.length > 1 ? named.at(-1) : undefined)) : undefined;
  return named.map((word) =>
    word === destination ? { word, folder, write: true, into: true } : { word, folder, write: writesAll },
  );
}

/**
 * Words whose files a command reads, to hold against `read` rules (`cat .env`, `grep TOKEN .env`, `--env-file=.env`).
 */
export function readWords(words: ShellWord[]): ShellWord[] {
  const found: ShellWord[] = [];
  for (const word of words.slice(1)) {
    const value = word.value;
    if (value === undefined) continue;
    const attached = /^(--[^=]+=|if=)(.+)$/.exec(value);
    if (attached) found.push({ raw: attached[2], value: attached[2] });
    else if (!value.startsWith('-')) found.push(word);
  }
  return found;
}

/** Redirection targets, devices left out; all but input (`<`, `<&`) write. */
export function redirectWords(redirects: ShellRedirect[]): PathWord[] {
  return redirects
    .filter((redirect) => !DEVICES.test(redirect.target.value ?? ''))
    .map((redirect) => ({ word: redirect.target, folder: false, write: !/^<&?$/.test(redirect.operator) }));
}

/** Files redirections read from (`< .env`). */
export function redirectReads(redirects: ShellRedirect[]): ShellWord[] {
  return redirects.filter((redirect) => READING.has(redirect.operator)).map((redirect) => redirect.target);
}

/** `host:path` and `rsync://…` name another machine. */
function isRemote(value: string | undefined): boolean {
  return value !== undefined && /^[^/]*:/.test(value);
}

/** `dd if=in of=out`: `of=` is written. */
function ddOperands(words: ShellWord[]): PathWord[] {
  return words.flatMap((word) => {
    const text = word.value ?? word.raw;
    if (!/^(if|of)=/.test(text)) return [];
    const path = word.value === undefined ? { raw: text.slice(3) } : { raw: text.slice(3), value: text.slice(3) };
    return [{ word: path, folder: false, write: text.startsWith('of=') }];
  });
}
