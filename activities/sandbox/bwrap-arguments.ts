import type { SandboxPolicy } from './policy.js';

/** Where the worker's proxy socket appears inside a sandbox that may reach some hosts. */
export const PROXY_SOCKET_INSIDE = '/run/loom/proxy.sock';

/** A sandbox's mounts besides the read-only root: what one call may write and may not see. */
export interface SandboxMounts {
  policy: SandboxPolicy;
  /** A private folder of the host, the sandbox's `/tmp`. */
  tmp: string;
  /** The folders among `policy.hidden` (the others are files). */
  hiddenFolders: ReadonlySet<string>;
  /** The worker's filtering proxy, when hosts are allowed. */
  proxySocket?: string;
  /** The host's Unix sockets the sandbox would see (host-sockets.ts), each covered with `mask`. */
  hostSockets?: { paths: string[]; mask: string };
}

type Mount = { path: string; args: string[] };

/**
 * bubblewrap's arguments for a sandbox: every namespace of its own (no network but its own
 * loopback, its own processes) and no capabilities, the host's filesystem read-only, the workspace
 * and the writable paths bound read-write (Loom's configuration in them read-only again), `/tmp`
 * private, hidden folders empty and hidden files unreadable, the host's Unix sockets covered.
 * Mounts go parent before child, so a path hidden
 * inside a writable folder stays hidden.
 */
export function bwrapArguments(mounts: SandboxMounts, cwd: string): string[] {
  const { policy } = mounts;
  const list: Mount[] = [
    { path: '/tmp', args: ['--bind', mounts.tmp, '/tmp'] },
    ...[policy.workspace, ...policy.writable].map((path) => ({ path, args: ['--bind', path, path] })),
    ...policy.config.readOnly.map((path) => ({ path, args: ['--ro-bind', path, path] })),
    ...policy.shownFromHostTmp.map((path) => ({ path, args: ['--ro-bind', path, path] })),
    ...policy.hidden.map((path) => ({
      path,
      args: mounts.hiddenFolders.has(path) ? ['--tmpfs', path] : ['--ro-bind', '/dev/null', path],
    })),
  ];
  if (mounts.proxySocket)
    list.push({ path: PROXY_SOCKET_INSIDE, args: ['--ro-bind', mounts.proxySocket, PROXY_SOCKET_INSIDE] });
  for (const path of mounts.hostSockets?.paths ?? [])
    list.push({ path, args: ['--ro-bind', mounts.hostSockets!.mask, path] });
  list.sort((a, b) => depth(a.path) - depth(b.path));
  // Read-only last: a writable folder bound inside a hidden one needs its mount point made first.
  const readOnly = policy.hidden
    .filter((path) => mounts.hiddenFolders.has(path))
    .flatMap((path) => ['--remount-ro', path]);
  return [
    '--die-with-parent',
    '--unshare-all',
    // Root's sandbox would keep every capability in its user namespace, enough to unmount what hides a path.
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    ...list.flatMap((mount) => mount.args),
    ...readOnly,
    '--setenv',
    'TMPDIR',
    '/tmp',
    '--chdir',
    cwd,
  ];
}

function depth(path: string): number {
  return path.split('/').filter(Boolean).length;
}
