import type { Dirent } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import ignore, { type Ignore } from 'ignore';
import { isInside } from '../files/project-path.js';

/** Read in this order, so `.ignore` rules win over `.gitignore` ones, as in ripgrep. */
const IGNORE_FILES = ['.gitignore', '.ignore'];

interface RuleSet {
  /** The folder the ignore files sit in; their patterns are relative to it. */
  dir: string;
  rules: Ignore;
}

/**
 * The `.gitignore`/`.ignore` rules in force in one folder: its own files and every parent's up to
 * the boundary, the deepest deciding first, as git and ripgrep read them.
 */
export class IgnoreRules {
  private constructor(private readonly sets: readonly RuleSet[]) {}

  /**
   * The rules above `dir`, from `boundary` down. `dir` itself is searched even when a parent's
   * rules exclude it (like ripgrep, an explicit path is searched), but their patterns still apply
   * to what is inside it.
   */
  static async above(boundary: string, dir: string): Promise<IgnoreRules> {
    const chain: string[] = [];
    for (let folder = dir; folder !== boundary && isInside(boundary, folder); folder = dirname(folder))
      chain.unshift(folder);
    const sets: RuleSet[] = [];
    // `dir`'s own files are read when the walk enters it.
    for (const folder of chain.length ? [boundary, ...chain.slice(0, -1)] : []) {
      const set = await load(folder, IGNORE_FILES);
      if (!set) continue;
      for (const below of chain.filter((path) => isInside(folder, path) && path !== folder)) reinclude(set, below);
      sets.push(set);
    }
    return new IgnoreRules(sets);
  }

  /** The rules for the children of `dir`, adding its own ignore files if `entries` has any. */
  async enter(dir: string, entries: Dirent[]): Promise<IgnoreRules> {
    const names = IGNORE_FILES.filter((name) => entries.some((entry) => entry.name === name && entry.isFile()));
    const set = names.length ? await load(dir, names) : undefined;
    return set ? new IgnoreRules([...this.sets, set]) : this;
  }

  ignores(path: string, isDir: boolean): boolean {
    for (let i = this.sets.length - 1; i >= 0; i--) {
      const set = this.sets[i];
      const result = set.rules.test(relative(set.dir, path) + (isDir ? '/' : ''));
      if (result.ignored) return true;
      if (result.unignored) {
        // A deeper `!folder/` re-includes what a shallower file excludes; the `ignore` package
        // would still exclude the folder's contents as children of an ignored folder.
        if (isDir) for (const outer of this.sets.slice(0, i)) reinclude(outer, path);
        return false;
      }
    }
    return false;
  }
}

/** Gitignore rules given as globs (the `ignore` argument of `list`), relative to `root`. */
export function extraRules(root: string, patterns: string[] | undefined): (path: string, isDir: boolean) => boolean {
  if (!patterns?.length) return () => false;
  const rules = ignore().add(patterns);
  return (path, isDir) => {
    const rel = relative(root, path);
    return Boolean(rel) && isInside(root, path) && rules.ignores(rel + (isDir ? '/' : ''));
  };
}

async function load(dir: string, names: string[]): Promise<RuleSet | undefined> {
  const texts = await Promise.all(names.map((name) => readFile(join(dir, name), 'utf8').catch(() => '')));
  const text = texts.join('\n');
  return text.trim() ? { dir, rules: ignore().add(text) } : undefined;
}

/** An anchored `!/folder/` rule: the folder stops counting as excluded in this set, its contents do not change. */
function reinclude(set: RuleSet, folder: string): void {
  const escaped = relative(set.dir, folder)
    .replace(/[\\*?[\]]/g, '\\$&')
    .replace(/ $/, '\\ ');
  set.rules.add(`!/${escaped}/`);
}
