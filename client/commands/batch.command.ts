import type { Command } from 'commander';
import { registerBatchApply, registerBatchDiff, registerBatchDiscard } from './batch/isolated.command.js';
import {
  registerBatchConcurrency,
  registerBatchControls,
  registerBatchLs,
  registerBatchResults,
  registerBatchStatus,
} from './batch/manage.command.js';
import { registerBatchRun } from './batch/run.command.js';

export function registerBatch(program: Command): void {
  const batch = program.command('batch').description('run many tasks as one durable batch of sessions');
  for (const register of [
    registerBatchRun,
    registerBatchStatus,
    registerBatchResults,
    registerBatchControls,
    registerBatchConcurrency,
    registerBatchDiff,
    registerBatchApply,
    registerBatchDiscard,
    registerBatchLs,
  ])
    register(batch);
}
