import type { TestProject } from 'vitest/node';
import { workflowBundlePath } from '../worker/bundle.js';
import { installSandboxTools } from './install/sandbox-tools.js';
import { installTemporal, startTemporalServer } from './temporal/temporal-server.js';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalBinary: string;
  }
}

/**
 * One real Temporal dev server for the whole run, from the binary `temporal-dev.sh` installs; the sandbox's programs.
 */
export default async function setup(project: TestProject) {
  installSandboxTools();
  const binary = await installTemporal();
  const [env] = await Promise.all([
    startTemporalServer({ binary }),
    workflowBundlePath('plain'),
    workflowBundlePath('traced'),
  ]);
  project.provide('temporalAddress', env.address);
  project.provide('temporalBinary', binary);
  return async () => {
    await env.teardown();
  };
}
