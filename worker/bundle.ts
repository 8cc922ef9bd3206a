import { bundleWorkflowCode } from '@temporalio/worker';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const WORKFLOWS_ENTRY = join(PROJECT_ROOT, 'workflows', 'index.ts');

/**
 * The workflow bundle, built once per version of the workflow code and cached on disk: bundling
 * takes seconds, and every `loom run` with an in-process worker would pay it again.
 */
export async function workflowBundlePath(cacheDir = join(PROJECT_ROOT, 'node_modules', '.cache', 'loom')): Promise<string> {
  const file = join(cacheDir, `workflows-${sourceHash()}.js`);
  if (existsSync(file)) return file;
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_ENTRY, logger: quietLogger });
  mkdirSync(cacheDir, { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, code);
  renameSync(temporary, file);
  return file;
}

/** A hash of everything that goes into the bundle: workflow and core sources and the lockfile. */
function sourceHash(): string {
  const hash = createHash('sha256');
  const files = [...listFiles(join(PROJECT_ROOT, 'workflows')), ...listFiles(join(PROJECT_ROOT, 'core'))];
  files.push(join(PROJECT_ROOT, 'package-lock.json'));
  for (const file of files.sort()) {
    hash.update(file.slice(PROJECT_ROOT.length));
    if (existsSync(file)) hash.update(readFileSync(file));
  }
  return hash.digest('hex').slice(0, 16);
}

function listFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    return statSync(path).isDirectory() ? listFiles(path) : [path];
  });
}

const quietLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};
