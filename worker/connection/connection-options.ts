import type { TLSConfig } from '@temporalio/common/lib/internal-non-workflow/index.js';
import type { TemporalTarget } from './target.js';

/**
 * What both of Temporal's clients (the SDK's `Connection` and a worker's `NativeConnection`) take to reach the target.
 */
export interface TemporalConnectionOptions {
  address: string;
  tls?: TLSConfig;
  apiKey?: string;
  metadata?: Record<string, string>;
}

export function connectionOptions(target: TemporalTarget): TemporalConnectionOptions {
  if (target.tls) quietIpServerNameWarning();
  const options: TemporalConnectionOptions = { address: target.address };
  if (target.tls) {
    options.tls = {
      serverNameOverride: target.tls.serverName,
      serverRootCACertificate: target.tls.serverCa,
      clientCertPair: target.tls.clientCertPair,
    };
  }
  if (target.apiKey !== undefined) options.apiKey = target.apiKey;
  if (target.metadata) options.metadata = target.metadata;
  return options;
}

let quieted = false;

/**
 * Node warns (DEP0123) whenever grpc-js opens TLS to an IP address, which is how clusters behind a
 * load balancer's IP are often reached: the warning says nothing a Loom user can act on.
 */
export function quietIpServerNameWarning(): void {
  if (quieted) return;
  quieted = true;
  const emit = process.emitWarning.bind(process) as (...args: unknown[]) => void;
  process.emitWarning = ((warning: unknown, ...rest: unknown[]) => {
    const code = typeof rest[0] === 'object' && rest[0] ? (rest[0] as { code?: string }).code : rest[1];
    if (code === 'DEP0123') return;
    emit(warning, ...rest);
  }) as typeof process.emitWarning;
}
