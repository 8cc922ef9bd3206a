import { Connection, type TLSConfig } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { installQuietRuntime } from '../../worker/runtime.js';
import { startTlsEndpoint, type TlsEndpoint } from '../../testkit/tls/endpoint.js';

installQuietRuntime('ERROR');

interface Target {
  address: string;
  tls: TLSConfig;
  apiKey?: string;
}

type Call = (connection: Connection) => Promise<unknown>;
const getSystemInfo: Call = (connection) => connection.workflowService.getSystemInfo({});

/** grpc-js, as Loom's client connects; no retry interceptor, so a refusal surfaces at once. */
async function viaGrpcJs(target: Target, call: Call = getSystemInfo): Promise<unknown> {
  const connection = Connection.lazy({ ...target, interceptors: [] });
  try {
    return await connection.withDeadline(Date.now() + 5000, () => call(connection));
  } finally {
    await connection.close();
  }
}

/** The worker's Rust stack; connecting already calls GetSystemInfo. */
async function viaNative(target: Target, call?: (connection: NativeConnection) => Promise<unknown>): Promise<unknown> {
  const connection = await NativeConnection.connect(target);
  try {
    return await call?.(connection);
  } finally {
    await connection.close();
  }
}

let endpoint: TlsEndpoint;
const pem = (path: string) => readFileSync(path);

beforeAll(async () => {
  endpoint = await startTlsEndpoint(inject('temporalAddress'));
});

afterAll(async () => {
  await endpoint?.stop();
});

describe('the API-key listener', () => {
  const withKey = (apiKey: string): Target => ({
    address: endpoint.apiKeyAddress,
    tls: { serverRootCACertificate: pem(endpoint.files.ca) },
    apiKey,
  });

  it('proxies calls that carry the API key', async () => {
    await expect(viaGrpcJs(withKey(endpoint.apiKey))).resolves.toMatchObject({ serverVersion: expect.any(String) });
    await expect(viaNative(withKey(endpoint.apiKey))).resolves.toBeUndefined();
  });

  it('answers a wrong API key with UNAUTHENTICATED', async () => {
    await expect(viaGrpcJs(withKey('wrong-key'))).rejects.toMatchObject({ code: 16, details: 'Request unauthorized' });
    await expect(viaNative(withKey('wrong-key'))).rejects.toMatchObject({
      name: 'TransportError',
      message: expect.stringContaining('Request unauthorized'),
    });
  });

  it('denies AddSearchAttributes, as Temporal Cloud does for API keys, and lists them', async () => {
    const request = { namespace: 'default', searchAttributes: { LoomTlsCheck: 1 } };
    await expect(
      viaGrpcJs(withKey(endpoint.apiKey), (c) => c.operatorService.addSearchAttributes(request)),
    ).rejects.toMatchObject({ code: 7 });
    await expect(
      viaNative(withKey(endpoint.apiKey), (c) => c.operatorService.addSearchAttributes(request)),
    ).rejects.toMatchObject({ code: 7 });
    const listed = await viaGrpcJs(withKey(endpoint.apiKey), (c) =>
      c.operatorService.listSearchAttributes({ namespace: 'default' }),
    );
    expect(listed).toMatchObject({ customAttributes: expect.any(Object) });
  });

  it('is refused by a client that trusts another CA', async () => {
    const target: Target = {
      ...withKey(endpoint.apiKey),
      tls: { serverRootCACertificate: pem(endpoint.files.otherCa) },
    };
    await expect(viaGrpcJs(target)).rejects.toMatchObject({
      code: 14,
      details: expect.stringContaining('unable to verify the first certificate'),
    });
    await expect(viaNative(target)).rejects.toThrow('UnknownIssuer');
  });
});

describe.each([
  { listener: 'mTLS through nginx', address: () => endpoint.mtlsAddress },
  { listener: 'strict mTLS', address: () => endpoint.strictAddress },
])('the $listener listener', ({ listener, address }) => {
  const strict = listener === 'strict mTLS';
  const mtls = (tls: Partial<TLSConfig> = {}): Target => ({
    address: address(),
    tls: {
      serverNameOverride: endpoint.serverName,
      serverRootCACertificate: pem(endpoint.files.ca),
      clientCertPair: { crt: pem(endpoint.files.clientCert), key: pem(endpoint.files.clientKey) },
      ...tls,
    },
  });

  it('accepts a client certificate signed by the test CA', async () => {
    await expect(viaGrpcJs(mtls())).resolves.toMatchObject({ serverVersion: expect.any(String) });
    await expect(viaNative(mtls())).resolves.toBeUndefined();
  });

  it('refuses a client without a certificate', async () => {
    const target = mtls({ clientCertPair: undefined });
    if (strict) {
      // The handshake fails; how the Rust client words it depends on when the alert arrives.
      await expect(viaGrpcJs(target)).rejects.toMatchObject({
        code: 14,
        details: expect.stringContaining('alert certificate required'),
      });
      await expect(viaNative(target)).rejects.toMatchObject({ name: 'TransportError' });
    } else {
      await expect(viaGrpcJs(target)).rejects.toMatchObject({ code: 16, details: 'client certificate required' });
      await expect(viaNative(target)).rejects.toThrow('client certificate required');
    }
  });

  it('refuses a client certificate from another CA', async () => {
    const target = mtls({
      clientCertPair: { crt: pem(endpoint.files.untrustedClientCert), key: pem(endpoint.files.untrustedClientKey) },
    });
    if (strict) {
      await expect(viaGrpcJs(target)).rejects.toMatchObject({ code: 14 });
      await expect(viaNative(target)).rejects.toMatchObject({ name: 'TransportError' });
    } else {
      await expect(viaGrpcJs(target)).rejects.toMatchObject({ code: 16, details: 'client certificate not trusted' });
      await expect(viaNative(target)).rejects.toThrow('client certificate not trusted');
    }
  });

  it('is refused by a client that trusts another CA', async () => {
    const target = mtls({ serverRootCACertificate: pem(endpoint.files.otherCa) });
    await expect(viaGrpcJs(target)).rejects.toMatchObject({ code: 14 });
    await expect(viaNative(target)).rejects.toThrow('UnknownIssuer');
  });

  it('is refused by a client without the server name override (no IP in the certificate)', async () => {
    const target = mtls({ serverNameOverride: undefined });
    await expect(viaGrpcJs(target)).rejects.toMatchObject({
      code: 14,
      details: expect.stringContaining('ERR_TLS_CERT_ALTNAME_INVALID'),
    });
    await expect(viaNative(target)).rejects.toThrow('NotValidForNameContext');
  });
});
