import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/** The path of a program on the worker's PATH, or undefined. */
export async function findProgram(name: string, path = process.env.PATH ?? ''): Promise<string | undefined> {
  for (const folder of path.split(delimiter).filter(Boolean)) {
    const candidate = join(folder, name);
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return undefined;
}
