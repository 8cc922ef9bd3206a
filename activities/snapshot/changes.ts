import { nulFields, type ShadowGit } from './shadow-git.js';

/** A file that differs between two snapshots, by its path in the project. */
export interface ChangedFile {
  path: string;
  status: 'added' | 'modified' | 'deleted';
}

const STATUS: Record<string, ChangedFile['status']> = { A: 'added', M: 'modified', D: 'deleted', T: 'modified' };

/** The files that differ between two snapshots, in path order. */
export async function changedFiles(git: ShadowGit, from: string, to: string): Promise<ChangedFile[]> {
  if (from === to) return [];
  const fields = nulFields(await git.run(['diff-tree', '-r', '-z', '--no-renames', '--name-status', from, to]));
  const changed: ChangedFile[] = [];
  for (let index = 0; index + 1 < fields.length; index += 2) {
    changed.push({ path: fields[index + 1], status: STATUS[fields[index]] ?? 'modified' });
  }
  return changed;
}

/** The unified diff between two snapshots, of every file or of the paths given (binary files named, not shown). */
export async function unifiedDiff(git: ShadowGit, from: string, to: string, paths?: string[]): Promise<string> {
  if (from === to || paths?.length === 0) return '';
  const args = ['diff', '--no-color', '--no-ext-diff', '--no-renames', from, to];
  return (await git.run(paths ? [...args, '--', ...paths] : args)).toString('utf8');
}
