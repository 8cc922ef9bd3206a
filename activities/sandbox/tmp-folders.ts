import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Each sandbox's `/tmp` is a folder `tmp-<worker pid>-<random>` in the worker's `loom-sandbox` folder,
 * removed when its process ends. One a worker that was killed left behind is removed by the next
 * sandbox any worker opens there: its pid names a process that no longer runs.
 */
const TMP_FOLDER = /^tmp-(\d+)-/;

export function tmpFolderPrefix(pid = process.pid): string {
  return `tmp-${pid}-`;
}

export async function removeTmpFolder(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true }).catch(() => undefined);
}

let swept = false;

/** Once per worker: the sandboxes' `/tmp` folders of workers that ended without removing them. */
export async function removeTmpFoldersOfEndedWorkers(root: string): Promise<void> {
  if (swept) return;
  swept = true;
  const names = await readdir(root).catch(() => []);
  await Promise.all(
    names.map(async (name) => {
      const pid = TMP_FOLDER.exec(name)?.[1];
      if (pid && !running(Number(pid))) await removeTmpFolder(join(root, name));
    }),
  );
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
