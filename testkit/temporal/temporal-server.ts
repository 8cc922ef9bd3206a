import { TestWorkflowEnvironment } from '@temporalio/testing';
import { captureOutput } from '../../dev-server/output.js';
import { runDevServer } from '../../dev-server/run.js';
import { DYNAMIC_CONFIG_FLAGS } from '../../dev-server/server-args.js';
import { loomSearchAttributes } from '../../core/runs/search-attributes.js';

/** The `temporal` CLI that `temporal-dev.sh install` finds or installs (dev-server/). */
export async function installTemporal(): Promise<string> {
  const output = captureOutput();
  const code = await runDevServer(['install'], process.env, output);
  if (code !== 0) throw new Error(`temporal-dev.sh install failed:\n${output.stderr()}`);
  return output.stdout().trim();
}

/**
 * An in-memory dev server with Loom's search attributes and the tuning `temporal-dev.sh start`
 * applies, plus any `KEY=VALUE` dynamic config a test needs (say, an early continue-as-new).
 */
export async function startTemporalServer(
  options: {
    binary?: string;
    dynamicConfig?: string[];
    /** Serve the Temporal UI on this port (off by default). */
    uiPort?: number;
  } = {},
): Promise<TestWorkflowEnvironment> {
  const extraArgs = [
    ...DYNAMIC_CONFIG_FLAGS,
    ...(options.dynamicConfig ?? []).flatMap((entry) => ['--dynamic-config-value', entry]),
  ];
  return TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: options.binary ?? (await installTemporal()) },
      searchAttributes: loomSearchAttributes,
      extraArgs,
      ...(options.uiPort ? { ui: true, uiPort: options.uiPort } : {}),
      log: { format: 'pretty', level: 'error' },
    },
  });
}
