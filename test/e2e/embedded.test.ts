import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { isListening } from '../../client/temporal/dev-server.js';
import { isExecutableFile } from '../../dev-server/cli-find.js';
import { freePort } from '../../testkit/network/free-port.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { parseJson, runLoom } from '../../testkit/loom/run-loom.js';

let env: LoomTestEnv;
let embeddedEnv: NodeJS.ProcessEnv;
let address: string;

/** The test environment without TEMPORAL_ADDRESS, on ports of its own. */
async function embedded(extra: NodeJS.ProcessEnv = {}): Promise<{ env: NodeJS.ProcessEnv; address: string }> {
  const [port, uiPort] = [await freePort(), await freePort()];
  const { TEMPORAL_ADDRESS: _unused, ...rest } = env.env;
  return {
    env: { ...rest, LOOM_TEMPORAL_PORT: String(port), LOOM_TEMPORAL_UI_PORT: String(uiPort), ...extra },
    address: `127.0.0.1:${port}`,
  };
}

beforeAll(async () => {
  env = await createLoomTestEnv({ files: { 'README.md': '# Embedded\n' } });
  ({ env: embeddedEnv, address } = await embedded());
});
afterAll(async () => {
  if (embeddedEnv) await runLoom(['down'], { env: embeddedEnv });
  await env?.close();
});

describe('embedded mode (no TEMPORAL_ADDRESS)', () => {
  it('starts the dev server in the background and a worker in-process, and `loom down` stops the server', async () => {
    env.model.setScript([{ when: { lastRole: 'user' }, reply: { text: 'Hello from the embedded setup.' } }]);
    expect(await isListening(address)).toBe(false);

    const first = await runLoom(['run', '--json', '-m', 'scripted/test-model', 'Say hello'], {
      env: embeddedEnv,
      cwd: env.project,
    });
    expect(parseJson(first)).toMatchObject({ status: 'completed', text: 'Hello from the embedded setup.' });
    expect(first.stderr).toContain(`Starting the Temporal dev server at ${address}`);
    expect(first.stderr).toMatch(/UI http:\/\/\S+:\d+/);
    expect(await isListening(address)).toBe(true);

    const second = await runLoom(['run', '--json', '-m', 'scripted/test-model', 'Say hello again'], {
      env: embeddedEnv,
      cwd: env.project,
    });
    expect(parseJson(second)).toMatchObject({ status: 'completed' });
    expect(second.stderr).not.toContain('Starting the Temporal dev server');

    const down = await runLoom(['down'], { env: embeddedEnv });
    expect(down.code).toBe(0);
    expect(await isListening(address)).toBe(false);
  });
});

// The first run on a machine without the Temporal CLI: the "release archive" comes from a local
// server and holds a `temporal` that runs the real one, so nothing is downloaded from the internet.
describe('the first run installs the Temporal CLI', () => {
  let folder: string;
  let release: Server;
  let requests = 0;
  let firstEnv: NodeJS.ProcessEnv | undefined;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'loom-first-run-'));
    const content = join(folder, 'archive');
    mkdirSync(content);
    writeFileSync(join(content, 'temporal'), `#!/bin/sh\nexec '${inject('temporalBinary')}' "$@"\n`, { mode: 0o755 });
    writeFileSync(join(content, 'padding'), Buffer.alloc(1_000_000, 7));
    execFileSync('tar', ['-czf', join(folder, 'cli.tar.gz'), '-C', content, 'temporal', 'padding']);
    const archive = readFileSync(join(folder, 'cli.tar.gz'));
    release = createServer((_request, response) => {
      requests++;
      response.writeHead(200, { 'content-type': 'application/gzip', 'content-length': archive.length });
      response.end(archive);
    });
    await new Promise<void>((resolve) => release.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    if (firstEnv) await runLoom(['down'], { env: firstEnv });
    await new Promise((resolve) => release?.close(resolve));
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('says what it downloads, from where, how big and into where, then the time it took; the next start reuses it', async () => {
    const installDir = join(folder, 'temporal-cli');
    const url = `http://127.0.0.1:${(release.address() as AddressInfo).port}/cli/archive/latest`;
    const withoutTemporal = (process.env.PATH ?? '')
      .split(delimiter)
      .filter((dir) => !isExecutableFile(join(dir, 'temporal')))
      .join(delimiter);
    const setup = await embedded({
      PATH: withoutTemporal,
      TEMPORAL_CLI: '',
      LOOM_TEMPORAL_DIR: installDir,
      LOOM_TEMPORAL_INSTALL_METHODS: 'download',
      LOOM_TEMPORAL_DOWNLOAD_URL: url,
    });
    firstEnv = setup.env;
    env.model.setScript([{ when: { lastRole: 'user' }, reply: { text: 'Installed and running.' } }]);

    const first = await runLoom(['run', '--json', '-m', 'scripted/test-model', 'Say hello'], {
      env: setup.env,
      cwd: env.project,
    });
    expect(parseJson(first)).toMatchObject({ status: 'completed', text: 'Installed and running.' });
    const lines = first.stderr.split('\n');
    const at = (pattern: RegExp) => lines.findIndex((line) => pattern.test(line));
    const starting = at(/^Starting the Temporal dev server at /);
    const downloading = at(/^Downloading the Temporal CLI \(\d+\.\d MB, 150 MB unpacked\) from /);
    const installed = at(/^Installed temporal version \S+ .* in [\d.]+ s\.$/);
    const running = at(/^Temporal dev server running/);
    expect(
      [starting, downloading, installed, running].every((index) => index >= 0),
      first.stderr,
    ).toBe(true);
    expect([starting, downloading, installed, running]).toEqual(
      [starting, downloading, installed, running].sort((a, b) => a - b),
    );
    expect(lines[downloading]).toContain(`${url}?platform=`);
    expect(lines[downloading]).toMatch(` into ${installDir} …`);
    expect(lines[installed]).toContain(` at ${join(installDir, 'bin', 'temporal')} in `);
    expect(requests).toBe(1);

    expect((await runLoom(['down'], { env: setup.env })).code).toBe(0);
    const again = await runLoom(['run', '--json', '-m', 'scripted/test-model', 'Say hello again'], {
      env: setup.env,
      cwd: env.project,
    });
    expect(parseJson(again)).toMatchObject({ status: 'completed' });
    expect(again.stderr).toContain('Starting the Temporal dev server');
    expect(again.stderr).not.toContain('Temporal CLI');
    expect(requests).toBe(1);
  }, 120_000);
});
