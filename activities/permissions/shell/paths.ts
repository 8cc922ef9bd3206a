import { FOLDER_COMMANDS, PATH_COMMANDS } from '../../../core/shell-commands.js';
import type { ShellRedirect } from './commands.js';
import { editedFiles } from './edited-files.js';
import { gitFolders } from './git.js';
import type { PathWord, ShellWord } from './words.js';

/** Redirections that open a file for reading. */
const READING = new Set(['<', '<>']);

/** Places a redirection may go that are no folder of anyone's. */
const DEVICES = /^\/dev\/(null|zero|u?random|stdin|stdout|stderr|tty|fd\/\d+)$/;

/**
 * The words of a command (name first) that name paths it reads, writes or works in: the
 * arguments of path commands (options left out, `--x=/path` values kept), the files editors
 * rewrite (`sed -i`), `dd`'s `if=` and `of=`, `git -C`'s folder, and a bare `cd`, which goes home.
 */
export function pathWords(words: ShellWord[]): PathWord[] {
  const name = words[0]?.value;
  if (name === undefined) return [];
  if (name === 'dd') return operands(words.slice(1), /^(if|of)=/).map((word) => ({ word, folder: false }));
  if (name === 'git') return gitFolders(words).map((word) => ({ word, folder: true }));
  if (!PATH_COMMANDS.has(name)) return editedFiles(words);
  const folder = FOLDER_COMMANDS.has(name);
  const args = words.slice(1);
  const paths: ShellWord[] = [];
  let options = true;
  for (const word of args) {
    const value = word.value;
    if (options && value === '--') options = false;
    else if (options && value?.startsWith('--') && value.includes('=')) {
      const attached = value.slice(value.indexOf('=') + 1);
      if (attached.includes('/')) paths.push({ raw: attached, value: attached });
    } else if (options && value?.startsWith('-') && value !== '-') continue;
    else if (value !== '-' && !(name === 'rsync' && isRemote(value))) paths.push(word);
  }
  // chmod's mode and chown's owner come first (`chmod 755 x`), unless given by --reference.
  const modeFirst =
    (name === 'chmod' || name === 'chown' || name === 'chgrp') &&
    !args.some((word) => word.value?.startsWith('--reference'));
  const named = modeFirst ? paths.slice(1) : paths;
  if ((name === 'cd' || name === 'pushd') && named.length === 0)
    return [{ word: { raw: '~', value: '~' }, folder: true }];
  return named.map((word) => ({ word, folder }));
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

/** Redirection targets, devices left out. */
export function redirectWords(redirects: ShellRedirect[]): ShellWord[] {
  return redirects.map((redirect) => redirect.target).filter((word) => !DEVICES.test(word.value ?? ''));
}

/** Files redirections read from (`< .env`). */
export function redirectReads(redirects: ShellRedirect[]): ShellWord[] {
  return redirects.filter((redirect) => READING.has(redirect.operator)).map((redirect) => redirect.target);
}

/** `host:path` and `rsync://…` name another machine. */
function isRemote(value: string | undefined): boolean {
  return value !== undefined && /^[^/]*:/.test(value);
}

function operands(words: ShellWord[], key: RegExp): ShellWord[] {
  return words.flatMap((word) => {
    if (word.value === undefined) return /^(if|of)=/.test(word.raw) ? [{ raw: word.raw.slice(3) }] : [];
    return key.test(word.value) ? [{ raw: word.value.slice(3), value: word.value.slice(3) }] : [];
  });
}
