import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxAvailability } from '../activities/sandbox/availability.js';
import { bash } from '../activities/tools/bash.js';
import type { ToolContext } from '../activities/tools/running/tool-handler.js';
import type { LoomConfig } from '../core/config/config.js';
import type { BenchEnv } from './harness.js';
import { repeat, type Row } from './stats.js';

/** Calls per sample: one bash call is a few milliseconds, too short to time alone. */
const CALLS = 20;

/**
 * What the sandbox adds to a bash call: `true` through the bash tool's handler, unconfined, in the
 * sandbox, and in a sandbox that may reach a host (its proxy and socat bridge started for the
 * call). Per call, in milliseconds, and the sandbox's cost as a difference (goal: under 20 ms).
 */
export async function sandboxStart(bench: BenchEnv, runs: number): Promise<Row[]> {
  const availability = await sandboxAvailability(bench.processEnv);
  if (!availability.ok)
    return [{ name: 'bash: sandbox start-up', unit: 'ms', samples: [], note: `skipped: ${availability.reason}` }];
  const dataDir = mkdtempSync(join(tmpdir(), 'loom-sandbox-bench-'));
  const context = (config: LoomConfig): ToolContext =>
    ({
      directory: bench.project,
      dataDir,
      sessionId: 'ses_sandboxbench',
      env: bench.processEnv,
      config,
      abort: new AbortController().signal,
      update() {},
    }) as unknown as ToolContext;
  const unconfined = context({ sandbox: { enabled: false } });
  const confined = context({});
  const networked = context({ sandbox: { network: { allow: ['registry.npmjs.org'] } } });
  const perCall = async (on: ToolContext) => {
    const started = performance.now();
    for (let call = 0; call < CALLS; call++) await bash({ command: 'true', description: 'Nothing' }, on);
    return (performance.now() - started) / CALLS;
  };
  try {
    const samples = await repeat(runs, async () => {
      const plain = await perCall(unconfined);
      const sandboxed = await perCall(confined);
      const withProxy = await perCall(networked);
      return { plain, sandboxed, withProxy, added: sandboxed - plain, addedWithProxy: withProxy - plain };
    });
    return [
      {
        name: 'bash `true`, unconfined',
        unit: 'ms',
        samples: samples.plain,
        note: `per call, ${CALLS} calls a sample`,
      },
      { name: 'bash `true`, sandboxed', unit: 'ms', samples: samples.sandboxed },
      {
        name: 'bash `true`, sandboxed with a host allowed',
        unit: 'ms',
        samples: samples.withProxy,
        note: 'proxy and socat bridge per call',
      },
      {
        name: 'sandbox start-up added per call',
        unit: 'ms',
        samples: samples.added,
        note: 'goal: under 20 ms (a sandboxed call needs no kill guard)',
      },
      { name: 'sandbox with network added per call', unit: 'ms', samples: samples.addedWithProxy },
    ];
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
