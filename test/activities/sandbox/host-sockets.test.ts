// Which of the host's Unix sockets a sandbox covers, from the kernel's real list, with real
// sockets bound by this process (the worker's network namespace), and what a covered one does to a
// sandboxed command through real bubblewrap.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundPaths, hostSockets } from '../../../activities/sandbox/host-sockets.js';
import { bash } from '../../../activities/tools/bash.js';
import { createToolContext, type ToolTestContext } from '../../../testkit/model/tool-context.js';

let root: string;
let privateRoot: string;
const servers: Server[] = [];
const contexts: ToolTestContext[] = [];

async function listen(path: string): Promise<void> {
  const server = createServer((socket) => socket.end('host service\n'));
  await new Promise<void>((resolve) => server.listen(path, resolve));
  servers.push(server);
}

beforeAll(async () => {
  // In /var/tmp, which the sandbox shows; privateRoot in the system's /tmp, which it replaces.
  root = realpathSync(mkdtempSync('/var/tmp/loom-host-sockets-'));
  privateRoot = realpathSync(mkdtempSync(join(tmpdir(), 'loom-host-sockets-')));
  for (const folder of ['home/.gnupg', 'home/sockets', 'project', 'stale'])
    mkdirSync(join(root, folder), { recursive: true });
  await listen(join(root, 'home', 'sockets', 'agent.sock'));
  await listen(join(root, 'home', '.gnupg', 'S.gpg-agent'));
  await listen(join(root, 'project', 'dev.sock'));
  await listen(join(privateRoot, 'x11.sock'));
  // Bound through a link: the kernel lists the path as given, the sandbox sees the socket where it is.
  symlinkSync(join(root, 'home', 'sockets'), join(root, 'linked'));
  await listen(join(root, 'linked', 'linked.sock'));
  // A socket whose path was taken by a file since: still listed, no longer a socket.
  await listen(join(root, 'stale', 'gone.sock'));
  unlinkSync(join(root, 'stale', 'gone.sock'));
  writeFileSync(join(root, 'stale', 'gone.sock'), 'a file now\n');
});

afterAll(async () => {
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  await Promise.all(contexts.map((context) => context.close()));
  rmSync(root, { recursive: true, force: true });
  rmSync(privateRoot, { recursive: true, force: true });
});

describe('hostSockets', () => {
  it('lists the sockets bound by a path the sandbox sees, once, where they really are', async () => {
    const listed = await hostSockets({
      shown: [join(root, 'project')],
      unseen: ['/tmp', tmpdir(), '/dev', '/proc', join(root, 'home', '.gnupg')],
    });
    const ours = listed.filter((path) => path.startsWith(`${root}/`) || path.startsWith(`${privateRoot}/`));
    expect(ours).toEqual([
      join(root, 'home', 'sockets', 'agent.sock'),
      join(root, 'home', 'sockets', 'linked.sock'),
      join(root, 'project', 'dev.sock'),
    ]);
  });

  it('reads the paths of the kernel list: spaces and newlines kept, relative and abstract names left out', () => {
    const listing = [
      'Num       RefCount Protocol Flags    Type St Inode Path',
      '0000000000000000: 00000002 00000000 00010000 0001 01 14203 /home/u/my sockets/a.sock',
      '0000000000000000: 00000002 00000000 00010000 0001 01 14204 /home/u/two',
      'lines.sock',
      '0000000000000000: 00000003 00000000 00000000 0001 03  1509',
      '0000000000000000: 00000002 00000000 00010000 0001 01 15840 relative.sock',
      '0000000000000000: 00000002 00000000 00010000 0001 01 15841 @abstract',
      '0000000000000000: 00000003 00000000 00000000 0001 03 15842 /home/u/my sockets/a.sock',
      '',
    ].join('\n');
    expect(boundPaths(listing)).toEqual(['/home/u/my sockets/a.sock', '/home/u/two\nlines.sock']);
  });
});

describe('a sandboxed command and a host socket', () => {
  it('is refused with EACCES, told why, and cannot remove what covers it, even in the workspace', async () => {
    const context = createToolContext(join(root, 'project'), {
      env: { ...process.env, HOME: join(root, 'home') },
      sessionId: 'ses_hostsockets',
    });
    contexts.push(context);
    const result = await bash(
      {
        command: `rm -f dev.sock; node -e "require('net').connect('${join(root, 'home', 'sockets', 'agent.sock')}').on('data', (d) => console.log(String(d))).on('error', (e) => { console.log(e.message); process.exitCode = 1 })"`,
        description: 'Probe',
      },
      context,
    );
    expect(result.output).toContain("rm: cannot remove 'dev.sock': Device or resource busy");
    expect(result.output).toContain(`connect EACCES ${join(root, 'home', 'sockets', 'agent.sock')}`);
    // The line names both; the output names one.
    expect(result.output).toContain(
      `${join(root, 'home', 'sockets', 'agent.sock')}, ${join(root, 'project', 'dev.sock')} are Unix sockets of the host, which the sandbox refuses to connect to`,
    );
    expect(result.output).not.toContain('host service');
  });
});
