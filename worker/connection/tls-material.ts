import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ConfigDataSource } from '@temporalio/envconfig';
import { TemporalConfigError } from './errors.js';

/** A certificate or key setting: its value (a path or the PEM itself) and where it was set. */
export interface TlsSetting {
  value: ConfigDataSource;
  /** `TEMPORAL_TLS_CLIENT_CERT_PATH`, or `tls.client_cert_path in profile "prod" of …`. */
  source: string;
}

/** Client certificate and key, read and checked as a pair. */
export interface ClientCertPair {
  crt: Buffer;
  key: Buffer;
}

/** Reads the PEM of a setting, naming the setting when the file cannot be read. */
function readPem(setting: TlsSetting): Buffer {
  if ('data' in setting.value) return Buffer.from(setting.value.data);
  try {
    return readFileSync(setting.value.path);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message;
    throw new TemporalConfigError(`${describe(setting)}: cannot read it (${reason}).`);
  }
}

/** `TEMPORAL_TLS_CLIENT_CERT_PATH (/etc/loom/client.pem)`: the setting, and the file it names. */
export function describe(setting: TlsSetting): string {
  return 'path' in setting.value ? `${setting.source} (${setting.value.path})` : setting.source;
}

/** The server CA bundle: one or more PEM certificates. */
export function readServerCa(setting: TlsSetting): Buffer {
  const pem = readPem(setting);
  const blocks = pem.toString('utf8').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g);
  if (!blocks)
    throw new TemporalConfigError(
      `${describe(setting)}: not a PEM certificate (no "-----BEGIN CERTIFICATE-----" block).`,
    );
  for (const block of blocks) parseCertificate(block, setting);
  return pem;
}

/**
 * The client certificate and its key: both or neither, each parsing, the key the certificate's,
 * and the certificate within its validity. Mistakes here would otherwise show up as a refused
 * handshake that names none of them.
 */
export function readClientPair(
  cert: TlsSetting | undefined,
  key: TlsSetting | undefined,
  now = new Date(),
): ClientCertPair | undefined {
  if (!cert && !key) return undefined;
  if (!cert)
    throw new TemporalConfigError(
      `${describe(key!)} gives a client key but no certificate goes with it: set TEMPORAL_TLS_CLIENT_CERT_PATH (or tls.client_cert_path in the profile) too.`,
    );
  if (!key)
    throw new TemporalConfigError(
      `${describe(cert)} gives a client certificate but no key goes with it: set TEMPORAL_TLS_CLIENT_KEY_PATH (or tls.client_key_path in the profile) too.`,
    );
  const crt = readPem(cert);
  const keyPem = readPem(key);
  const certificate = parseCertificate(crt.toString('utf8'), cert);
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(keyPem);
  } catch (error) {
    throw new TemporalConfigError(`${describe(key)}: not a PEM private key (${(error as Error).message}).`);
  }
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new TemporalConfigError(`${describe(key)} is not the key of the certificate in ${describe(cert)}.`);
  }
  if (new Date(certificate.validTo) < now)
    throw new TemporalConfigError(`${describe(cert)}: the client certificate expired on ${certificate.validTo}.`);
  if (new Date(certificate.validFrom) > now)
    throw new TemporalConfigError(
      `${describe(cert)}: the client certificate is not valid before ${certificate.validFrom}.`,
    );
  return { crt, key: keyPem };
}

function parseCertificate(pem: string, setting: TlsSetting): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch (error) {
    throw new TemporalConfigError(`${describe(setting)}: not a PEM certificate (${(error as Error).message}).`);
  }
}
