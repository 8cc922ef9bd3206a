import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../worker/bundle.js';
import { untilPolling } from '../testkit/loom/worker-process.js';
import type { BenchEnv } from './harness.js';

const MAIN = join(PROJECT_ROOT, 'bench', 'bare-worker-main.ts');

/** bench/bare-worker-main.ts in its own process on `taskQueue`, resolved once it polls. */
export async function startBareWorkerProcess(bench: BenchEnv, taskQueue: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { ...bench.processEnv, LOOM_TASK_QUEUE: taskQueue, BENCH_WORKFLOW_CODE: bench.workflowCodePath },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await untilPolling(child, 'The bare worker', 60_000);
  return child;
}
