import { isIP } from 'node:net';

/** One `sandbox.network.allow` entry: a host name, `*.`-wildcard, `*` or IP literal, maybe with a port. */
interface AllowEntry {
  host: string;
  port?: number;
}

/** The form hosts are compared in: lower case, no IPv6 brackets or trailing dot, IPv6 shortest. */
export function normalizeHost(host: string): string {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
  if (isIP(bare) !== 6) return bare;
  try {
    return new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  } catch {
    return bare;
  }
}

function parseEntry(entry: string): AllowEntry {
  // A bare IPv6 literal has several colons and so never reads as host:port here.
  const withPort = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(entry.trim());
  return withPort ? { host: normalizeHost(withPort[1]), port: Number(withPort[2]) } : { host: normalizeHost(entry) };
}

function entryMatches(entry: AllowEntry, host: string, port: number): boolean {
  if (entry.port !== undefined && entry.port !== port) return false;
  if (entry.host === '*') return true;
  if (entry.host.startsWith('*.')) return host.endsWith(entry.host.slice(1));
  return host === entry.host;
}

/**
 * Whether a host matches an allow list entry: `example.com` exactly; `*.example.com` any subdomain,
 * not the apex; `*` any host; an IP literal (`127.0.0.1`, `::1`, `[::1]`). An entry may carry
 * `:port`, and then matches that port only.
 */
export function hostAllowed(host: string, port: number, allow: readonly string[]): boolean {
  const asked = normalizeHost(host);
  return allow.some((entry) => entryMatches(parseEntry(entry), asked, port));
}

/**
 * Whether an entry without a wildcard names this host: what it takes to reach a local-network
 * address, so that `*` or `*.nip.io` (whose names anyone can point at 127.0.0.1) never reach one.
 */
export function hostListedExactly(host: string, port: number, allow: readonly string[]): boolean {
  const asked = normalizeHost(host);
  return allow.some((text) => {
    const entry = parseEntry(text);
    return !entry.host.includes('*') && entryMatches(entry, asked, port);
  });
}

export function describeAllowList(allow: readonly string[]): string {
  return allow.length === 0 ? 'the list is empty' : `allowed: ${allow.join(', ')}`;
}
