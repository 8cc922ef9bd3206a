import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { isConfigPath } from '../../core/config/config-files.js';
import { hostAllowed } from './network-allow.js';
import type { RefusedConnection } from './network-proxy.js';
import type { SandboxPolicy } from './policy.js';

/**
 * `touch: cannot touch '/x': Read-only file system`, `EROFS: read-only
 * file system, open '/x'`, Python's `[Errno 30] … : '/x'`.
 */
const READ_ONLY = [
  /['"‘]?(\/[^\s'"’:]+)['"’]?:? Read-only file system/i,
  /read-only file system(?:, \w+)? ['"](\/[^'"]+)['"]/i,
  /Read-only file system: ['"](\/[^'"]+)['"]/,
];
const NAME_NOT_RESOLVED = [
  /Could not resolve (?:host|proxy): ([^\s;]+)/i,
  /getaddrinfo (?:ENOTFOUND|EAI_AGAIN) ([^\s;]+)/,
  /Failed to resolve ['"]?([^\s'"]+)/i,
  /unable to resolve host(?: address)? ['"]?([^\s'"]+)/i,
];
/** A config file or folder is a mount point in the sandbox: renaming or deleting it is "busy". */
const BUSY = /Device or resource busy|EBUSY/i;
const NO_NETWORK =
  /Temporary failure in name resolution|Name or service not known|Network is unreachable|ENETUNREACH|No address associated with hostname/i;
/** How programs say a connection was refused for want of permission (the host's sockets are covered with a mode 000 file). */
const PERMISSION_DENIED = /Permission denied|EACCES|\[Errno 13\]/;
const UNIX_SOCKET = /AF_UNIX|UNIX-CONNECT|unix-socket|unix:\/\/|\bsocket\b/i;
const LOOPBACK_REFUSED =
  /(?:127\.\d+\.\d+\.\d+|localhost|\[::1\]|::1)[:\s][^\n]*?(?:Connection refused|ECONNREFUSED|Couldn't connect)|(?:Connection refused|ECONNREFUSED|Failed to connect to)[^\n]*?(?:127\.\d+\.\d+\.\d+|localhost|::1)/i;

/** A file a program could not find (`No such file`, node's `Cannot find module`, Python's `can't open file`). */
const NOT_FOUND = /No such file or directory|ENOENT|Cannot find module|can't open file|not found/i;
/** An absolute path in the host's `/tmp`, as programs quote it. */
const HOST_TMP_PATH = /(?:^|[\s'"‘(=:])(\/tmp\/[^\s'"’:),;]+)/g;

export const ESCAPE_HINT =
  'If the command needs this, call bash again with the same command and "sandbox": false; a person will be asked to approve running it outside the sandbox.';

/** What the model should do instead of changing Loom's configuration with a command. */
export const CONFIG_HINT =
  "Loom's configuration (loom.json, opencode.json, .loom/, .opencode/) cannot be changed by commands: change it with the write or edit tool, which asks the person, and the change takes effect once they confirm it.";

/** What the sandbox refused a command, in a few words each, and what to tell the model about it. */
export interface SandboxRefusal {
  /** `/etc/hosts is read-only in the sandbox`, `~/.ssh is hidden by the sandbox`: for the person too. */
  reasons: string[];
  /** The reasons with what the model may do about them. */
  forModel: string;
  /** What a sandbox configuration would have to add to allow it (for an MCP server's entry). */
  entry: { write: string[]; allow: string[] };
}

/**
 * What to tell the model when a sandboxed command may have failed because of the sandbox: which
 * path it could not write or see, which host or host's Unix socket it could not reach, and how to
 * ask for more. Reads the command's output (and, for sockets, its line) for the errors programs
 * print; the proxy's refusals are known exactly. Undefined when nothing points at the sandbox.
 */
export function explainRefusal(
  output: string,
  failed: boolean,
  policy: SandboxPolicy,
  refused: RefusedConnection[],
  sockets: { hostSockets: string[]; command?: string } = { hostSockets: [] },
): string | undefined {
  return sandboxRefusal(output, failed, policy, refused, sockets)?.forModel;
}

/** explainRefusal's reasons, kept apart for the person's transcript and permission asks. */
export function sandboxRefusal(
  output: string,
  failed: boolean,
  policy: SandboxPolicy,
  refused: RefusedConnection[],
  sockets: { hostSockets: string[]; command?: string } = { hostSockets: [] },
): SandboxRefusal | undefined {
  const reasons: string[] = [];
  const entry = { write: [] as string[], allow: [] as string[] };
  for (const connection of uniqueHosts(refused)) {
    reasons.push(`the sandbox's proxy refused ${connection.host}:${connection.port} (${connection.reason})`);
    if (!hostAllowed(connection.host, connection.port, policy.allowedHosts)) entry.allow.push(connection.host);
  }
  if (failed) {
    const config = configRefusal(output, policy);
    if (config) {
      const said = `Loom's sandbox refused something this command tried: ${config}. ${CONFIG_HINT}`;
      return { reasons: [config], forModel: said, entry };
    }
    const readOnly = firstMatch(output, READ_ONLY);
    // A `write` entry names what exists: a new file's folder.
    if (readOnly) entry.write.push(existsSync(readOnly) ? readOnly : dirname(readOnly));
    if (readOnly !== undefined || /Read-only file system|EROFS/i.test(output)) {
      const writable = [policy.workspace, ...policy.writable, '/tmp'].join(', ');
      reasons.push(`${readOnly ? `${readOnly} is` : 'the path is'} read-only in the sandbox (writable: ${writable})`);
    }
    const hidden = policy.hidden.filter((path) => namesPath(output, path));
    if (hidden.length > 0)
      reasons.push(`${hidden.join(', ')} ${hidden.length > 1 ? 'are' : 'is'} hidden by the sandbox (unreadable)`);
    const hostTmp = NOT_FOUND.test(output) ? hostTmpPath(output) : undefined;
    if (hostTmp)
      reasons.push(
        `${hostTmp} is in the host's /tmp, which the sandbox does not see: its /tmp is its own, empty when the command starts`,
      );
    const host = firstMatch(output, NAME_NOT_RESOLVED);
    if (refused.length === 0 && (host !== undefined || NO_NETWORK.test(output))) {
      if (host) entry.allow.push(host);
      const allowed = policy.allowedHosts.length ? `only ${policy.allowedHosts.join(', ')} through its proxy` : 'none';
      reasons.push(
        `${host ? `${host} cannot be reached: ` : ''}the sandbox has no network (hosts allowed: ${allowed})`,
      );
    }
    const socketRefusal = hostSocketRefusal(output, policy.workspace, sockets.hostSockets, sockets.command ?? '');
    if (socketRefusal) reasons.push(socketRefusal);
    if (LOOPBACK_REFUSED.test(output))
      reasons.push(
        "the sandbox has its own loopback: services listening on the worker's localhost cannot be reached from it",
      );
  }
  if (reasons.length === 0) return undefined;
  return {
    reasons,
    forModel: `Loom's sandbox refused something this command tried: ${reasons.join('; ')}. ${ESCAPE_HINT}`,
    entry,
  };
}

/**
 * Whether the output names `path` as a path (`cat: /run/x: …`), not as part of another word
 * (`node:internal/modules/run_main` does not name `/run`).
 */
function namesPath(output: string, path: string): boolean {
  const escaped = path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?:^|[\\s'"‘(=:,\\[])${escaped}(?=$|[\\s'"’/):,;\\]])`, 'm').test(output);
}

/** The first path of the host's `/tmp` the output names that exists there (the sandbox's /tmp is another folder). */
function hostTmpPath(output: string): string | undefined {
  for (const match of output.matchAll(HOST_TMP_PATH)) {
    const path = match[1].replace(/[.,;]+$/, '');
    if (existsSync(path)) return path;
  }
  return undefined;
}

/** A refused write of a config path: one the output names, bound read-only or a config file by name. */
function configRefusal(output: string, policy: SandboxPolicy): string | undefined {
  if (!/Read-only file system|EROFS/i.test(output) && !BUSY.test(output)) return undefined;
  const named = firstMatch(output, READ_ONLY);
  const path =
    (named !== undefined && isConfigPath(named) ? named : undefined) ??
    policy.config.readOnly.find((candidate) => output.includes(candidate)) ??
    policy.config.readOnly.find((candidate) => output.includes(relativeName(candidate, policy.workspace)));
  return path ? `${path} is read-only in the sandbox` : undefined;
}

/** `.opencode/agent` for `/project/.opencode/agent`: how a command run in the project names it. */
function relativeName(path: string, workspace: string): string {
  return path.startsWith(`${workspace}/`) ? path.slice(workspace.length + 1) : path;
}

/**
 * The host's sockets the output or the line names (a socket in the workspace maybe by its relative
 * path), or, when a socket was refused unnamed, which ones there are.
 */
function hostSocketRefusal(
  output: string,
  workspace: string,
  hostSockets: string[],
  command: string,
): string | undefined {
  if (hostSockets.length === 0 || !PERMISSION_DENIED.test(output)) return undefined;
  const named = hostSockets.filter((path) => {
    const names = path.startsWith(`${workspace}/`) ? [path, path.slice(workspace.length + 1)] : [path];
    return names.some((name) => output.includes(name) || command.includes(name));
  });
  if (named.length > 0)
    return `${named.join(', ')} ${named.length > 1 ? 'are Unix sockets' : 'is a Unix socket'} of the host, which the sandbox refuses to connect to`;
  if (!UNIX_SOCKET.test(`${command}\n${output}`)) return undefined;
  const some = hostSockets.slice(0, 3).join(', ') + (hostSockets.length > 3 ? ', …' : '');
  return `the sandbox refuses connections to the host's Unix sockets (${some})`;
}

function firstMatch(text: string, patterns: RegExp[]): string | undefined {
  for (const pattern of patterns) {
    const found = pattern.exec(text)?.[1];
    if (found) return found.replace(/[.,;]+$/, '');
  }
  return undefined;
}

function uniqueHosts(refused: RefusedConnection[]): RefusedConnection[] {
  const seen = new Map<string, RefusedConnection>();
  for (const connection of refused) seen.set(`${connection.host}:${connection.port}`, connection);
  return [...seen.values()];
}
