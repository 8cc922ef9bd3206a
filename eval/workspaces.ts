import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../worker/bundle.js';
import type { EvalTask } from './tasks.js';

const FIXTURE = join(PROJECT_ROOT, 'eval', 'fixture');

/** One run of one task: where it works, relative to its batch's folder. */
export interface TaskRun {
  task: EvalTask;
  /** 1…repeat. */
  attempt: number;
  folder: string;
}

/**
 * A fresh copy of the fixture for every run of every task, under `root`, each a git repository
 * at one commit (so a check can tell what changed). Returns the runs in order.
 */
export function prepareWorkspaces(root: string, tasks: EvalTask[], repeat: number): TaskRun[] {
  const runs: TaskRun[] = [];
  for (const task of tasks) {
    for (let attempt = 1; attempt <= repeat; attempt++) {
      const folder = repeat > 1 ? `${task.id}-${attempt}` : task.id;
      const path = join(root, folder);
      mkdirSync(path, { recursive: true });
      cpSync(FIXTURE, path, { recursive: true });
      const git = (...args: string[]) => execFileSync('git', args, { cwd: path, stdio: 'ignore' });
      git('init', '-q');
      git('add', '-A');
      git('-c', 'user.name=eval', '-c', 'user.email=eval@loom.invalid', 'commit', '-qm', 'fixture');
      runs.push({ task, attempt, folder });
    }
  }
  return runs;
}
