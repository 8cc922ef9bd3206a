import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * A port that was free a moment ago (nothing listens on it once this resolves).
 *
 * It is chosen below the kernel's ephemeral range: a server stopped and started again on the same port (Temporal,
 * PostgreSQL) would otherwise find it taken by some other test's outgoing connection in between.
 */
export async function freePort(): Promise<number> {
  const below = ephemeralRangeStart();
  const lowest = Math.max(1024, below - 12_000);
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = lowest + Math.floor(Math.random() * (below - lowest));
    if (await canListen(port)) return port;
  }
  throw new Error(`freePort: no free port found between ${lowest} and ${below - 1} after 50 tries`);
}

function ephemeralRangeStart(): number {
  try {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(start) && start > 2048 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
