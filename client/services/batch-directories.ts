import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { BatchTaskInput } from '../../core/batch/batch.js';
import { isInsidePath } from '../../core/text/path.js';
import { InputError } from '../input-error.js';
import { plural } from '../render/quantities.js';

/**
 * Checks that every task's `directory` is a folder inside the batch's `directory`, symlinks
 * followed, so that no task's session works outside the folder the batch was given. Only for a
 * batch on this machine: another host's folders are not here to look at.
 */
export function checkTaskDirectories(directory: string, tasks: BatchTaskInput[]): void {
  const problems: string[] = [];
  let root: string | undefined;
  for (const [index, task] of tasks.entries()) {
    if (task.directory === undefined) continue;
    root ??= realFolder(directory);
    const problem = folderProblem(root, resolve(directory, task.directory));
    if (problem)
      problems.push(
        `task ${index + 1} (${JSON.stringify(task.description)}): directory ${JSON.stringify(task.directory)} ${problem}`,
      );
  }
  if (problems.length) {
    throw new InputError(
      `${plural(problems.length, 'task names a bad directory', 'tasks name bad directories')} (each must be a folder inside ${directory}):\n${problems.slice(0, 20).join('\n')}`,
    );
  }
}

function realFolder(directory: string): string {
  try {
    return realpathSync(directory);
  } catch (error) {
    throw new InputError(`Cannot read the batch's directory ${directory}: ${(error as Error).message}`);
  }
}

/** Why `folder` cannot be a task's directory under `root` (a real path), or undefined. */
function folderProblem(root: string, folder: string): string | undefined {
  let real: string;
  try {
    real = realpathSync(folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT'
      ? 'does not exist'
      : code === 'ENOTDIR'
        ? 'is not a folder'
        : `cannot be read (${(error as Error).message})`;
  }
  if (!statSync(real).isDirectory()) return 'is not a folder';
  return isInsidePath(root, real) ? undefined : `leads outside the batch's directory, to ${real}`;
}
