import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Addresses that reach this machine or its network, not the internet. */
const LOCAL = new BlockList();
for (const [address, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  LOCAL.addSubnet(address, prefix, 'ipv4');
}
for (const [address, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
] as const) {
  LOCAL.addSubnet(address, prefix, 'ipv6');
}

export function isLocalAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return isLocalAddress(mapped);
  const family = isIP(address);
  return family !== 0 && LOCAL.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The local-network address a URL's host resolves to, if any (the first one found), or undefined
 * for a host that only resolves to public addresses or does not resolve at all.
 */
export async function localAddressOf(url: string): Promise<string | undefined> {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return undefined;
  }
  if (isIP(host)) return isLocalAddress(host) ? host : undefined;
  if (host === 'localhost' || host.endsWith('.localhost')) return '127.0.0.1';
  try {
    const addresses = await lookup(host, { all: true, verbatim: true });
    return addresses.find(({ address }) => isLocalAddress(address))?.address;
  } catch {
    return undefined;
  }
}
