import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bash } from '../../activities/tools/bash.js';
import { ExternalDirectoryError, ToolError } from '../../activities/tools/running/tool-handler.js';
import { bash as bashSpec } from '../../core/tools/bash.js';
import { createToolContext, type ToolTestContext } from '../../testkit/model/tool-context.js';

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HANDLER = fileURLToPath(new URL('../../activities/tools/bash.ts', import.meta.url));

let project: string;
let context: ToolTestContext;
/** Outside the sandbox, where the host's process ids are the command's own (`$$`, `$!`). */
let unconfined: ToolTestContext;
const contexts: ToolTestContext[] = [];

function contextWith(overrides: Parameters<typeof createToolContext>[1] = {}): ToolTestContext {
  const created = createToolContext(project, overrides);
  contexts.push(created);
  return created;
}

const run = (command: string, options: { timeout?: number; workdir?: string } = {}, on = context) =>
  bash({ command, description: 'Run a test command', ...options }, on);

/** Whether a process is still running. A dead orphan no one has reaped yet (a zombie) is not. */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
  if (process.platform !== 'linux') return true;
  try {
    // PID 1 in some containers never reaps orphans, so they stay as zombies: state Z in /proc.
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(50)) {
    if (condition()) return true;
  }
  return condition();
}

/** The pids a command wrote to a file in the project, one a line, once there are `count` of them. */
async function pidsIn(file: string, count: number, timeoutMs = 20_000): Promise<number[]> {
  const read = () =>
    existsSync(join(project, file))
      ? readFileSync(join(project, file), 'utf8').split('\n').filter(Boolean).map(Number)
      : [];
  expect(await waitUntil(() => read().length >= count, timeoutMs)).toBe(true);
  return read();
}

async function expectGone(pids: number[], timeoutMs = 5_000): Promise<void> {
  await waitUntil(() => pids.every((pid) => !isRunning(pid)), timeoutMs);
  expect(pids.filter(isRunning)).toEqual([]);
}

beforeAll(() => {
  project = realpathSync(mkdtempSync(join(tmpdir(), 'loom-bash-')));
  mkdirSync(join(project, 'sub folder'));
  writeFileSync(join(project, 'file.txt'), 'a file\n');
  context = contextWith();
  unconfined = contextWith({ config: { sandbox: { enabled: false } } });
});

afterAll(async () => {
  await Promise.all(contexts.map((created) => created.close()));
  rmSync(project, { recursive: true, force: true });
});

describe('bash spec', () => {
  it('labels a call with the first line of its command, cut to 80 characters', () => {
    expect(bashSpec.summarize({ command: 'npm test', description: 'Run the tests' })).toBe('npm test');
    expect(bashSpec.summarize({ command: 'npm ci\nnpm test', description: 'Install and test' })).toBe('npm ci …');
    const long = bashSpec.summarize({ command: `echo ${'x'.repeat(100)}`, description: 'Print a lot' });
    expect(long).toHaveLength(80);
    expect(long.endsWith('…')).toBe(true);
  });

  it('refuses a timeout above the maximum', () => {
    expect(bashSpec.parameters.safeParse({ command: 'true', description: 'd', timeout: 600_001 }).success).toBe(false);
    expect(bashSpec.parameters.safeParse({ command: 'true', description: 'd', timeout: 600_000 }).success).toBe(true);
  });
});

describe('bash', () => {
  it('returns stdout and stderr interleaved in the order they were written', async () => {
    const result = await run('echo one; echo two >&2; echo three; echo four >&2; echo five');
    expect(result.title).toBe('Run a test command');
    expect(result.output).toBe('one\ntwo\nthree\nfour\nfive');
    expect(result.metadata).toEqual({ exit: 0, description: 'Run a test command' });
  });

  it('reports a non-zero exit code as a normal result', async () => {
    const result = await run('echo failing >&2; exit 3');
    expect(result.output).toBe('failing\n\nExit code: 3');
    expect(result.metadata).toMatchObject({ exit: 3 });
  });

  it('says so when there is no output', async () => {
    expect((await run('true')).output).toBe('(no output)');
  });

  it('reports the signal that killed the command', async () => {
    const result = await run('echo bye; kill -TERM $$');
    expect(result.output).toBe('bye\n\nKilled by signal SIGTERM');
    expect(result.metadata).toMatchObject({ exit: null });
  });

  it('runs in the project directory, or in workdir', async () => {
    expect((await run('pwd')).output).toBe(project);
    expect((await run('pwd; cat ../file.txt', { workdir: 'sub folder' })).output).toBe(
      `${join(project, 'sub folder')}\na file`,
    );
  });

  it('refuses a workdir outside the project', async () => {
    await expect(run('pwd', { workdir: '..' })).rejects.toBeInstanceOf(ExternalDirectoryError);
  });

  it('names a workdir that does not exist', async () => {
    const error = await run('pwd', { workdir: 'missing' }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).message).toBe(`The workdir ${join(project, 'missing')} does not exist.`);
  });

  it('gives the command an empty stdin', async () => {
    expect((await run('cat; echo done')).output).toBe('done');
  });

  it('reports the output so far while the command runs', async () => {
    const watched = contextWith();
    const result = await run('for i in 1 2 3; do echo $i; sleep 0.3; done', {}, watched);
    expect(result.output).toBe('1\n2\n3');
    const outputs = watched.updates.map((update) => update.metadata?.output);
    expect(outputs.length).toBeGreaterThanOrEqual(2);
    expect(outputs[0]).toBe('1\n');
    expect(outputs.at(-1)).toBe('1\n2\n3\n');
    expect(watched.updates[0].metadata?.description).toBe('Run a test command');
  });

  it('returns when the command ends, even if a background process holds its output open', async () => {
    const start = Date.now();
    const result = await run('sleep 30 & echo $! > background.pid; echo started');
    expect(Date.now() - start).toBeLessThan(5_000);
    expect(result.output).toBe('started');
    const [pid] = await pidsIn('background.pid', 1);
    process.kill(pid, 'SIGKILL');
  });

  it('stops the command and everything it started when it times out', async () => {
    const start = Date.now();
    const result = await run('echo started; sleep 300 & echo $! > timeout.pid; wait', { timeout: 500 }, unconfined);
    expect(Date.now() - start).toBeLessThan(5_000);
    expect(result.output).toBe('started\n\nCommand timed out after 500 ms and was stopped.');
    expect(result.metadata).toEqual({
      exit: null,
      description: 'Run a test command',
      timedOut: true,
      unsandboxed: true,
    });
    await expectGone(await pidsIn('timeout.pid', 1), 2_000);
  });

  it('stops the command and everything it started when the call is cancelled', async () => {
    const controller = new AbortController();
    const cancelled = contextWith({ abort: controller.signal, config: { sandbox: { enabled: false } } });
    const running = run('echo $$ > cancel.pids; sleep 600 & echo $! >> cancel.pids; wait', {}, cancelled);
    const pids = await pidsIn('cancel.pids', 2);
    await sleep(300);
    const start = Date.now();
    controller.abort(new Error('cancelled by the test'));
    await expect(running).rejects.toThrow('cancelled by the test');
    expect(Date.now() - start).toBeLessThan(5_000);
    await expectGone(pids, 5_000 - (Date.now() - start));
  });

  it('runs nothing when the call is already cancelled', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled before the start'));
    await expect(run('touch never-created', {}, contextWith({ abort: controller.signal }))).rejects.toThrow(
      'cancelled before the start',
    );
    expect(existsSync(join(project, 'never-created'))).toBe(false);
  });

  it('leaves no process behind when the worker is killed', async () => {
    const script = join(project, 'worker.mts');
    writeFileSync(
      script,
      `import { bash } from ${JSON.stringify(HANDLER)};
const directory = process.argv[2];
await bash(
  { command: 'echo $$ > orphan.pids; sleep 600 & echo $! >> orphan.pids; wait', description: 'Sleep for ten minutes' },
  { directory, dataDir: directory, env: process.env, config: { sandbox: { enabled: false } }, abort: new AbortController().signal, update() {} } as never,
);
`,
    );
    const worker = spawn(process.execPath, ['--import', 'tsx', script, project], { cwd: REPO_ROOT, stdio: 'ignore' });
    try {
      const pids = await pidsIn('orphan.pids', 2);
      expect(pids.every(isRunning)).toBe(true);
      worker.kill('SIGKILL');
      await expectGone(pids, 5_000);
    } finally {
      worker.kill('SIGKILL');
    }
  });
});

describe('bash in its sandbox', () => {
  /** A file the command would write later, had it not been stopped. */
  async function neverWritten(file: string, afterMs = 2_500): Promise<void> {
    await sleep(afterMs);
    expect(existsSync(join(project, file))).toBe(false);
  }

  it('stops the command and everything it started when it times out', async () => {
    const result = await run('echo started; (sleep 1.5; touch late-timeout) & wait', { timeout: 500 });
    expect(result.output).toBe('started\n\nCommand timed out after 500 ms and was stopped.');
    await neverWritten('late-timeout');
  });

  it('stops the command and everything it started when the call is cancelled', async () => {
    const controller = new AbortController();
    const running = run(
      'touch cancel-started; (sleep 1.5; touch late-cancel) & wait',
      {},
      contextWith({ abort: controller.signal }),
    );
    expect(await waitUntil(() => existsSync(join(project, 'cancel-started')), 10_000)).toBe(true);
    controller.abort(new Error('cancelled by the test'));
    await expect(running).rejects.toThrow('cancelled by the test');
    await neverWritten('late-cancel');
  });

  it('leaves nothing running when the worker is killed', async () => {
    const script = join(project, 'sandboxed-worker.mts');
    writeFileSync(
      script,
      `import { bash } from ${JSON.stringify(HANDLER)};
const directory = process.argv[2];
await bash(
  { command: 'touch orphan-started; (until [ -e go ]; do sleep 0.05; done; touch late-orphan) & wait', description: 'Outlive the worker' },
  { directory, dataDir: directory, sessionId: 'ses_orphan', env: process.env, config: {}, abort: new AbortController().signal, update() {} } as never,
);
`,
    );
    const worker = spawn(process.execPath, ['--import', 'tsx', script, project], { cwd: REPO_ROOT, stdio: 'ignore' });
    try {
      expect(await waitUntil(() => existsSync(join(project, 'orphan-started')), 20_000)).toBe(true);
      // The command's background process acts only when told, after the worker is gone: however
      // slow this machine, what it would do then is done only if it outlived the worker.
      const gone = once(worker, 'exit');
      worker.kill('SIGKILL');
      await gone;
      await sleep(300);
      writeFileSync(join(project, 'go'), '');
      await neverWritten('late-orphan');
    } finally {
      worker.kill('SIGKILL');
    }
  });
});
