import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** The first of `names` found as an executable file in PATH's folders, then in `extraDirs`. */
export function findExecutable(names: string[], env: NodeJS.ProcessEnv, extraDirs: string[] = []): string | undefined {
  const dirs = [...(env.PATH ?? '').split(delimiter).filter(Boolean), ...extraDirs];
  for (const name of names) {
    for (const dir of dirs) {
      const path = join(dir, name);
      if (isExecutable(path)) return path;
    }
  }
  return undefined;
}

export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
