import { TestWorkflowEnvironment } from '@temporalio/testing';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { loomSearchAttributes } from '../../core/search-attributes.js';
import { PROJECT_ROOT } from '../../worker/bundle.js';

const script = (command: string) =>
  execFileSync('bash', [join(PROJECT_ROOT, 'temporal-dev.sh'), command], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }).trim();

/** The `temporal` CLI that `temporal-dev.sh` finds or installs. */
export function temporalBinary(): string {
  return script('install');
}

/**
 * An in-memory dev server with Loom's search attributes and the tuning `temporal-dev.sh start`
 * applies, plus any `KEY=VALUE` dynamic config a test needs (say, an early continue-as-new).
 */
export function startTemporalServer(options: { binary?: string; dynamicConfig?: string[] } = {}): Promise<TestWorkflowEnvironment> {
  const extraArgs = [...script('dynamic-config').split('\n'), ...(options.dynamicConfig ?? []).flatMap((entry) => ['--dynamic-config-value', entry])];
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: options.binary ?? temporalBinary() },
      searchAttributes: loomSearchAttributes,
      extraArgs,
      log: { format: 'pretty', level: 'error' },
    },
  });
}
