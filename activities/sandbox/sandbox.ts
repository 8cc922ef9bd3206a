import { randomBytes } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { PROXY_SOCKET_INSIDE, bwrapArguments } from './bwrap-arguments.js';
import { startFilteringProxy, type FilteringProxy, type RefusedConnection } from './network-proxy.js';
import type { SandboxPolicy } from './policy.js';
import { findProgram } from './find-program.js';
import { hostSockets, socketMask } from './host-sockets.js';
import { processTmpFolder, removeTmpFolder, sandboxRoot, sessionTmpFolder, sweepTmpFolders } from './tmp-folders.js';

/** The port the bridge listens on inside a sandbox that may reach some hosts. */
const PROXY_PORT = 3128;

/** One process's sandbox, ready to start: how to launch the program in it, and what it refused. */
export interface Sandbox {
  policy: SandboxPolicy;
  /** `bwrap <arguments> --`: put before the program and its arguments. */
  launcher: string[];
  /** Shell text to run inside before the program (the network bridge); empty when there is none. */
  preamble: string;
  /** Variables the program needs set inside (the proxy's address). */
  env: Record<string, string>;
  /** Connections the proxy refused so far. */
  refused(): RefusedConnection[];
  /** The host's Unix sockets it covers (a connection to one is refused). */
  hostSockets: string[];
  /** Stops the proxy and removes the sandbox's /tmp once the process has ended (again: the same promise). */
  close(): Promise<void>;
}

/**
 * Opens a sandbox for a process started in `cwd` under `policy`. Its `/tmp` is the session's own
 * folder, kept between the session's calls, or with no `sessionId` one of its own, removed when it
 * closes (tmp-folders.ts says when the others go). With hosts allowed, a filtering proxy listens on a
 * socket bound into the sandbox, where socat bridges `127.0.0.1:3128` to it. The host's Unix
 * sockets it would see are listed now, as it starts, and covered.
 */
export async function openSandbox(
  policy: SandboxPolicy,
  options: { bwrap: string; cwd: string; sessionId?: string },
): Promise<Sandbox> {
  const root = sandboxRoot();
  await mkdir(root, { recursive: true, mode: 0o700 });
  await sweepTmpFolders(root);
  const hiddenFolders = new Set<string>();
  await Promise.all(
    policy.hidden.map(async (path) =>
      (await stat(path).catch(() => undefined))?.isDirectory() ? hiddenFolders.add(path) : undefined,
    ),
  );

  let proxy: FilteringProxy | undefined;
  let preamble = '';
  let env: Record<string, string> = {};
  if (policy.allowedHosts.length > 0) {
    const socat = await findProgram('socat');
    if (!socat)
      throw new Error(
        'sandbox.network.allow needs socat inside the sandbox to reach the proxy, and it is not installed (Debian, Ubuntu: apt-get install socat).',
      );
    proxy = await startFilteringProxy(join(root, `proxy-${randomBytes(6).toString('hex')}.sock`), policy.allowedHosts);
    preamble = bridge(socat);
    const url = `http://127.0.0.1:${PROXY_PORT}`;
    env = {
      HTTP_PROXY: url,
      HTTPS_PROXY: url,
      http_proxy: url,
      https_proxy: url,
      ALL_PROXY: url,
      all_proxy: url,
      NO_PROXY: '',
      no_proxy: '',
    };
  }
  const sockets = await hostSockets({
    shown: [policy.workspace, ...policy.writable, ...policy.shownFromHostTmp],
    unseen: ['/tmp', '/dev', '/proc', ...policy.hidden],
  }).catch(async (error: unknown) => {
    await proxy?.close();
    throw error;
  });
  const mask = sockets.length ? await socketMask(root) : undefined;
  // Made last: nothing that can fail comes between a process's own and the sandbox that removes it.
  const tmp = options.sessionId ? await sessionTmpFolder(root, options.sessionId) : await processTmpFolder(root);
  const args = bwrapArguments(
    {
      policy,
      tmp,
      hiddenFolders,
      ...(proxy ? { proxySocket: proxy.socketPath } : {}),
      ...(mask ? { hostSockets: { paths: sockets, mask } } : {}),
    },
    options.cwd,
  );
  let closing: Promise<void> | undefined;
  return {
    policy,
    launcher: [options.bwrap, ...args, '--'],
    preamble,
    env,
    refused: () => proxy?.refused ?? [],
    hostSockets: sockets,
    close: () =>
      (closing ??= (async () => {
        await proxy?.close();
        if (!options.sessionId) await removeTmpFolder(tmp);
      })()),
  };
}

/** socat in the background, then a wait until it listens (a connection through bash's `/dev/tcp`). */
function bridge(socat: string): string {
  return (
    `'${socat}' TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${PROXY_SOCKET_INSIDE} </dev/null >/dev/null 2>&1 & ` +
    `for _ in $(seq 200); do (exec 3<>/dev/tcp/127.0.0.1/${PROXY_PORT}) 2>/dev/null && break; sleep 0.01; done; `
  );
}
