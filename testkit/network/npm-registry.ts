import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A registry on the loopback serving one package, `name`@1.0.0, whose bin runs `script` (ES module
 * text): what `npx -y name` fetches, without the network. Every other package is a 404, as
 * registry.npmjs.org answers one that does not exist.
 */
export async function startNpmRegistry(
  name: string,
  script: string,
): Promise<{ url: string; host: string; close(): Promise<void> }> {
  const folder = mkdtempSync(join(tmpdir(), 'loom-npm-registry-'));
  writeFileSync(
    join(folder, 'package.json'),
    JSON.stringify({ name, version: '1.0.0', type: 'module', bin: { [name]: 'bin.mjs' } }),
  );
  writeFileSync(join(folder, 'bin.mjs'), `#!/usr/bin/env node\n${script}\n`, { mode: 0o755 });
  const file = execFileSync('npm', ['pack', '--silent', '--pack-destination', folder], { cwd: folder })
    .toString()
    .trim();
  const tarball = readFileSync(join(folder, file));
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://registry').pathname;
    const url = `http://${request.headers.host}`;
    if (path === `/${name}`) {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(packument(name, `${url}/${name}/-/${file}`, tarball)));
    } else if (path === `/${name}/-/${file}`) {
      response.setHeader('content-type', 'application/octet-stream');
      response.end(tarball);
    } else {
      response.statusCode = 404;
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ error: 'Not found' }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `http://${host}/`,
    host,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

function packument(name: string, tarballUrl: string, tarball: Buffer) {
  const version = {
    name,
    version: '1.0.0',
    bin: { [name]: 'bin.mjs' },
    dist: {
      tarball: tarballUrl,
      shasum: createHash('sha1').update(tarball).digest('hex'),
      integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
    },
  };
  return { name, 'dist-tags': { latest: '1.0.0' }, versions: { '1.0.0': version } };
}
