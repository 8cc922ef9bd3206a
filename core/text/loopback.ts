const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** Whether a host name or IP stays on this machine (`localhost`, `127.x.x.x`, `::1`). */
export function isLoopback(hostname: string): boolean {
  return LOOPBACK.has(hostname) || hostname.startsWith('127.');
}
