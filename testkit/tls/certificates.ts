import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface KeyPair {
  cert: string;
  key: string;
}

/** PEM file paths of every certificate the TLS endpoint and its tests use. */
export interface Certificates {
  ca: KeyPair;
  /** For the apiKey listener: `DNS:localhost, IP:127.0.0.1`. */
  apiKeyServer: KeyPair;
  /** For the mTLS and strict listeners: the server name only, no IP, so clients need an override. */
  namedServer: KeyPair;
  /** Signed by `ca`: accepted. */
  client: KeyPair;
  /** A second CA that signs nothing the servers use. */
  otherCa: KeyPair;
  /** Signed by `otherCa`: refused. */
  untrustedClient: KeyPair;
}

interface Leaf {
  name: string;
  usage: 'serverAuth' | 'clientAuth';
  altNames?: string;
}

/**
 * Makes two CAs and four leaf certificates in `dir` with the openssl CLI. EC P-256 keys (fast to
 * make), PKCS#8 PEM; full X.509 v3 extensions, because the worker's Rust TLS stack (rustls) rejects
 * a leaf without them or a CA used as a leaf.
 */
export async function makeCertificates(dir: string, serverName: string): Promise<Certificates> {
  const [ca, otherCa] = await Promise.all([
    authority(dir, 'ca', 'Loom Test CA'),
    authority(dir, 'other-ca', 'Unrelated Test CA'),
  ]);
  const [apiKeyServer, namedServer, client, untrustedClient] = await Promise.all([
    leaf(dir, 'api-key-server', ca, {
      name: 'localhost',
      usage: 'serverAuth',
      altNames: 'DNS:localhost, IP:127.0.0.1',
    }),
    leaf(dir, 'named-server', ca, { name: serverName, usage: 'serverAuth', altNames: `DNS:${serverName}` }),
    leaf(dir, 'client', ca, { name: 'loom-worker', usage: 'clientAuth' }),
    leaf(dir, 'untrusted-client', otherCa, { name: 'loom-worker', usage: 'clientAuth' }),
  ]);
  return { ca, apiKeyServer, namedServer, client, otherCa, untrustedClient };
}

function authority(dir: string, file: string, commonName: string): Promise<KeyPair> {
  return issue(dir, file, commonName, [
    'basicConstraints = critical, CA:TRUE',
    'keyUsage = critical, keyCertSign, cRLSign',
    'subjectKeyIdentifier = hash',
  ]);
}

function leaf(dir: string, file: string, issuer: KeyPair, { name, usage, altNames }: Leaf): Promise<KeyPair> {
  const extensions = [
    'basicConstraints = critical, CA:FALSE',
    'keyUsage = critical, digitalSignature',
    `extendedKeyUsage = ${usage}`,
    'subjectKeyIdentifier = hash',
    'authorityKeyIdentifier = keyid:always',
  ];
  if (altNames) extensions.push(`subjectAltName = ${altNames}`);
  return issue(dir, file, name, extensions, issuer);
}

/** A self-signed certificate, or one signed by `issuer` (`req -CA`, OpenSSL 3). */
async function issue(
  dir: string,
  file: string,
  commonName: string,
  extensions: string[],
  issuer?: KeyPair,
): Promise<KeyPair> {
  const pair = { cert: join(dir, `${file}.pem`), key: join(dir, `${file}-key.pem`) };
  // A config of our own, so the system's openssl.cnf adds no extensions of its own (such as CA:TRUE).
  const config = join(dir, `${file}.cnf`);
  writeFileSync(
    config,
    ['[req]', 'distinguished_name = dn', 'prompt = no', '[dn]', `CN = ${commonName}`, '[ext]', ...extensions, ''].join(
      '\n',
    ),
  );
  const args = ['req', '-x509', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-noenc', '-days', '7'];
  args.push('-config', config, '-extensions', 'ext', '-keyout', pair.key, '-out', pair.cert);
  if (issuer) args.push('-CA', issuer.cert, '-CAkey', issuer.key);
  try {
    await run('openssl', args);
  } catch (error) {
    const { code, stderr } = error as { code?: string | number; stderr?: string };
    if (code === 'ENOENT')
      throw new Error(
        'openssl is not on PATH: the TLS test endpoint makes its certificates with the openssl CLI (apt-get install openssl).',
      );
    throw new Error(`openssl ${args.join(' ')} failed making ${pair.cert}:\n${stderr ?? String(error)}`);
  }
  return pair;
}
