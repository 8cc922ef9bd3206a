import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../worker/bundle.js';
import type { BenchEnv } from './harness.js';

const MAIN = join(PROJECT_ROOT, 'bench', 'bare-worker-main.ts');

/** bench/bare-worker-main.ts in its own process on `taskQueue`, resolved once it polls. */
export async function startBareWorkerProcess(bench: BenchEnv, taskQueue: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { ...bench.processEnv, LOOM_TASK_QUEUE: taskQueue, BENCH_WORKFLOW_CODE: bench.workflowCodePath },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`The bare worker did not start within 60 s:\n${output}`)), 60_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('polling task queue')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`The bare worker exited with ${code}:\n${output}`));
    });
  });
  child.removeAllListeners('exit');
  return child;
}
