import { TestWorkflowEnvironment } from '@temporalio/testing';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { loomSearchAttributes } from '../../core/search-attributes.js';
import { PROJECT_ROOT, workflowBundlePath } from '../../worker/bundle.js';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalBinary: string;
  }
}

/** One real Temporal dev server for the whole run, from the binary `temporal-dev.sh` installs. */
export default async function setup(project: TestProject) {
  const binary = temporalBinary();
  const [env] = await Promise.all([
    TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: 'existing-path', path: binary },
        searchAttributes: loomSearchAttributes,
        log: { format: 'pretty', level: 'error' },
      },
    }),
    workflowBundlePath(),
  ]);
  project.provide('temporalAddress', env.address);
  project.provide('temporalBinary', binary);
  return async () => {
    await env.teardown();
  };
}

export function temporalBinary(): string {
  return execFileSync('bash', [join(PROJECT_ROOT, 'temporal-dev.sh'), 'install'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}
