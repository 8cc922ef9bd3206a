import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../network/free-port.js';
import { makeCertificates } from './certificates.js';
import { findNginx, startNginx } from './nginx.js';
import { startStrictListener } from './strict-listener.js';

export const SERVER_NAME = 'temporal.loom.test';

export interface TlsEndpoint {
  /** TLS (server-authenticated only) + API key check: host:port on 127.0.0.1 */
  apiKeyAddress: string;
  /** the API key the apiKey listener accepts (as `authorization: Bearer <key>`) */
  apiKey: string;
  /** mutual TLS, through nginx: a client certificate signed by the test CA is required */
  mtlsAddress: string;
  /** mutual TLS through a Node TLS server that refuses a bad/missing client cert in the TLS handshake itself */
  strictAddress: string;
  /** the only DNS name in the mTLS and strict listeners' certificates (they have no IP SAN) */
  serverName: string;
  /** PEM file paths */
  files: {
    /** the test CA's certificate (trust root for all three server certs) */
    ca: string;
    /** signed by the test CA: accepted */
    clientCert: string;
    clientKey: string;
    /** a second, unrelated CA (for "the CA does not match" cases) */
    otherCa: string;
    /** signed by otherCa: refused */
    untrustedClientCert: string;
    untrustedClientKey: string;
  };
  stop(): Promise<void>;
}

/**
 * Real TLS in front of a plaintext Temporal frontend (`upstream`, host:port), for tests of
 * production-style connections: an API-key listener and an mTLS listener in nginx, and a strict
 * mTLS listener in Node. Certificates, config and logs live in a temp folder `stop()` removes.
 */
export async function startTlsEndpoint(upstream: string): Promise<TlsEndpoint> {
  const binary = findNginx();
  const dir = mkdtempSync(join(tmpdir(), 'loom-tls-'));
  try {
    const certs = await makeCertificates(dir, SERVER_NAME);
    const apiKey = `loom-test-${randomBytes(16).toString('hex')}`;
    const [apiKeyPort, mtlsPort] = await distinctFreePorts(2);
    const nginx = await startNginx(binary, { dir, upstream, apiKey, apiKeyPort, mtlsPort, certs });
    const strict = await startStrictListener(upstream, certs.namedServer, certs.ca.cert).catch(
      async (error: unknown) => {
        await nginx.stop();
        throw error;
      },
    );
    return {
      apiKeyAddress: `127.0.0.1:${apiKeyPort}`,
      apiKey,
      mtlsAddress: `127.0.0.1:${mtlsPort}`,
      strictAddress: strict.address,
      serverName: SERVER_NAME,
      files: {
        ca: certs.ca.cert,
        clientCert: certs.client.cert,
        clientKey: certs.client.key,
        otherCa: certs.otherCa.cert,
        untrustedClientCert: certs.untrustedClient.cert,
        untrustedClientKey: certs.untrustedClient.key,
      },
      async stop() {
        await Promise.all([nginx.stop(), strict.close()]);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}
