import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { findRipgrep } from '../activities/tools/search/ripgrep.js';
import { runCheck } from './check.js';
import type { RunResult } from './result.js';
import type { TaskRun } from './workspaces.js';

export interface OpenCodeEvalOptions {
  binary: string;
  /** `provider/model`, as OpenCode's configuration names it. */
  model: string;
  /** OpenCode's configuration: the same provider and permissions Loom had. */
  config: Record<string, unknown>;
  batchFolder: string;
  /** OpenCode's home and data, apart from the user's. */
  dataFolder: string;
  runs: TaskRun[];
  taskTimeoutMs: number;
  log(line: string): void;
}

/** One JSON line of `opencode run --format json`, as far as the eval reads it. */
interface OpenCodeEvent {
  type: string;
  part?: { tool?: string; text?: string; tokens?: { input?: number; output?: number; cache?: { read?: number } } };
  error?: { name?: string; data?: { message?: string }; message?: string };
}

/** Runs each task with `opencode run` in its folder, one after another, and judges it with the same check. */
export async function runOpenCodeEval(options: OpenCodeEvalOptions): Promise<RunResult[]> {
  mkdirSync(join(options.dataFolder, 'home'), { recursive: true });
  const configFile = join(options.dataFolder, 'opencode.json');
  writeFileSync(configFile, JSON.stringify({ autoupdate: false, share: 'disabled', ...options.config }));
  const rg = await findRipgrep(process.env);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: join(options.dataFolder, 'home'),
    OPENCODE_CONFIG: configFile,
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    PATH: `${rg ? `${dirname(rg)}:` : ''}${process.env.PATH}`,
  };
  const results: RunResult[] = [];
  for (const run of options.runs) {
    const folder = join(options.batchFolder, run.folder);
    const started = Date.now();
    const { events, code, timedOut } = await openCodeRun(
      options.binary,
      ['run', '--format', 'json', '-m', options.model, run.task.prompt],
      folder,
      env,
      options.taskTimeoutMs,
    );
    const texts = events.filter((event) => event.type === 'text' && event.part?.text).map((event) => event.part!.text!);
    const tools = events
      .filter((event) => event.type === 'tool_use' && event.part?.tool)
      .map((event) => event.part!.tool!);
    const steps = events.filter((event) => event.type === 'step_finish');
    const error = events.find((event) => event.type === 'error')?.error;
    const answer = texts.at(-1) ?? '';
    const check = runCheck(run.task.check, folder, answer, tools);
    results.push({
      agent: 'OpenCode',
      model: options.model,
      task: run.task.id,
      kind: run.task.kind,
      attempt: run.attempt,
      passed: check.passed,
      status: timedOut ? 'timed out' : code === 0 && !error ? 'completed' : 'failed',
      seconds: (Date.now() - started) / 1000,
      tokens: {
        // Prompt tokens whether or not the server had them cached, as for Loom.
        input: steps.reduce(
          (sum, step) => sum + (step.part?.tokens?.input ?? 0) + (step.part?.tokens?.cache?.read ?? 0),
          0,
        ),
        output: steps.reduce((sum, step) => sum + (step.part?.tokens?.output ?? 0), 0),
      },
      tools,
      answer,
      ...(error ? { error: error.data?.message ?? error.message ?? error.name } : {}),
      ...(check.passed ? {} : { checkOutput: check.output }),
    });
    options.log(`  OpenCode ${run.task.id} #${run.attempt}: ${check.passed ? 'passed' : 'failed'}`);
  }
  return results;
}

function openCodeRun(
  binary: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ events: OpenCodeEvent[]; code: number | null; timedOut: boolean }> {
  return new Promise((resolve, reject) => {
    // OpenCode takes its project from PWD when it is set: it must be the task's folder, not the eval's.
    const child = spawn(binary, args, { cwd, env: { ...env, PWD: cwd }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.resume();
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const events = stdout.split('\n').flatMap((line): OpenCodeEvent[] => {
        try {
          return line.trim() ? [JSON.parse(line) as OpenCodeEvent] : [];
        } catch {
          return [];
        }
      });
      resolve({ events, code, timedOut });
    });
  });
}
