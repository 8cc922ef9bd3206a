import { cpSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../worker/bundle.js';

/**
 * A copy of the code the workers run, taken as the run starts. In a checkout others edit while
 * the run goes on, a worker restarted after a kill would otherwise load newer workflow code than
 * the runs it picks up were started with, and the run would test that, not the faults.
 * Returns the `loom` binary of the copy.
 */
export async function snapshotCode(into: string): Promise<string> {
  mkdirSync(into, { recursive: true });
  for (const name of ['core', 'workflows', 'activities', 'worker', 'client', 'dev-server'])
    cpSync(join(PROJECT_ROOT, name), join(into, name), { recursive: true });
  for (const name of ['package.json', 'package-lock.json', 'tsconfig.json'])
    cpSync(join(PROJECT_ROOT, name), join(into, name));
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(into, 'node_modules'), 'dir');
  // Bundle the copy's workflows once here, rather than in every worker that starts at once.
  const bundle = (await import(pathToFileURL(join(into, 'worker', 'bundle.ts')).href)) as {
    workflowBundlePath(): Promise<string>;
  };
  await bundle.workflowBundlePath();
  return join(into, 'client', 'loom.js');
}
