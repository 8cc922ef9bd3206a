import { join, relative, sep } from 'node:path';
import { isInsidePath } from '../../core/text/path.js';
import type { BatchRecords } from '../store/batches.js';
import { copyFolder } from '../snapshot/copies.js';

/** `…/isolated/<batch>/tasks/<n>/…`: the folders `prepareTaskCopy` makes (see `isolationFolder`, `copyFolder`). */
const COPY_PATH = new RegExp(`[\\\\/]isolated[\\\\/](bat_[\\w-]+)[\\\\/]tasks[\\\\/](\\d+)(?:[\\\\/]|$)`);

/**
 * The project folder a folder inside an isolated batch task's copy stands for: the same folder of
 * the project the batch copied. Undefined for any other folder.
 */
export async function projectOfCopy(
  store: Pick<BatchRecords, 'getBatch'>,
  directory: string,
): Promise<string | undefined> {
  const match = COPY_PATH.exec(directory);
  if (!match) return undefined;
  const isolation = (await store.getBatch(match[1]))?.isolation;
  if (!isolation?.folder || !isolation.root) return undefined;
  const copy = copyFolder(isolation.folder, Number(match[2]));
  if (!isInsidePath(copy, directory)) return undefined;
  const inside = relative(copy, directory);
  return inside ? join(isolation.root, ...inside.split(sep)) : isolation.root;
}
