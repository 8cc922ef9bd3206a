// Which Temporal a Loom process uses: Temporal's own variables and profile files, read as its CLI
// reads them, with every mistake named (setting and where it came from) before anything starts.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveTemporalTarget } from '../../worker/connection/target.js';
import { temporalUiUrl } from '../../worker/connection/ui.js';
import { makeCertificates, type Certificates } from '../../testkit/tls/certificates.js';

let dir: string;
let certs: Certificates;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'loom-target-'));
  certs = await makeCertificates(dir, 'temporal.loom.test');
});

/** An environment with no Temporal settings but these, and a home whose config folder is empty. */
function envWith(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { HOME: dir, XDG_CONFIG_HOME: join(dir, 'no-config'), ...extra };
}

function profileFile(name: string, toml: string): string {
  const path = join(dir, name);
  writeFileSync(path, toml);
  return path;
}

const errorOf = (env: NodeJS.ProcessEnv) => {
  try {
    resolveTemporalTarget(env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected an error');
};

describe('where the settings come from', () => {
  it('uses the embedded dev server when nothing names a server', () => {
    const target = resolveTemporalTarget(envWith({}));
    expect(target).toMatchObject({ address: '127.0.0.1:7233', namespace: 'default', embedded: true, tls: undefined });
    expect(target.sources).toEqual({ address: "Loom's embedded dev server", namespace: 'default' });
    expect(resolveTemporalTarget(envWith({ LOOM_TEMPORAL_PORT: '7999' })).address).toBe('127.0.0.1:7999');
  });

  it('reads the variables, an empty one counting as unset', () => {
    const target = resolveTemporalTarget(
      envWith({ TEMPORAL_ADDRESS: 'temporal.internal:7233', TEMPORAL_NAMESPACE: 'agents', TEMPORAL_TLS: '' }),
    );
    expect(target).toMatchObject({
      address: 'temporal.internal:7233',
      namespace: 'agents',
      embedded: false,
      tls: undefined,
    });
    expect(target.sources).toMatchObject({ address: 'TEMPORAL_ADDRESS', namespace: 'TEMPORAL_NAMESPACE' });
  });

  it('reads a profile of the TOML file, the variables winning, and says which setting came from where', () => {
    const file = profileFile(
      'profiles.toml',
      `[profile.default]\naddress = "dev.internal:7233"\n\n[profile.prod]\naddress = "prod.internal:7233"\nnamespace = "agents"\n[profile.prod.tls]\nserver_ca_cert_path = "${certs.ca.cert}"\nserver_name = "temporal.loom.test"\nclient_cert_path = "${certs.client.cert}"\nclient_key_path = "${certs.client.key}"\n`,
    );
    const target = resolveTemporalTarget(
      envWith({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'prod', TEMPORAL_NAMESPACE: 'other' }),
    );
    expect(target).toMatchObject({
      address: 'prod.internal:7233',
      namespace: 'other',
      embedded: false,
      profile: { name: 'prod', file },
    });
    expect(target.tls?.serverName).toBe('temporal.loom.test');
    expect(target.tls?.clientCertPair?.crt.toString()).toBe(readFileSync(certs.client.cert, 'utf8'));
    expect(target.sources).toMatchObject({
      address: `address in profile "prod" of ${file}`,
      namespace: 'TEMPORAL_NAMESPACE',
      serverCa: `tls.server_ca_cert_path in profile "prod" of ${file}`,
      clientCert: `tls.client_cert_path in profile "prod" of ${file}`,
      serverName: `tls.server_name in profile "prod" of ${file}`,
    });
    // Without TEMPORAL_PROFILE: the file's "default" profile.
    expect(resolveTemporalTarget(envWith({ TEMPORAL_CONFIG_FILE: file })).address).toBe('dev.internal:7233');
  });

  it("finds Temporal's default profile file in the user's config folder", () => {
    const config = mkdtempSync(join(dir, 'xdg-'));
    const folder = join(config, 'temporalio');
    mkdirSync(folder);
    writeFileSync(join(folder, 'temporal.toml'), '[profile.default]\naddress = "from-default-file:7233"\n');
    const target = resolveTemporalTarget({ HOME: dir, XDG_CONFIG_HOME: config });
    expect(target.address).toBe('from-default-file:7233');
    expect(target.sources.address).toBe(`address in profile "default" of ${join(folder, 'temporal.toml')}`);
  });

  it('turns TLS on for an API key, as Temporal SDKs do, unless TEMPORAL_TLS says false', () => {
    const withKey = resolveTemporalTarget(
      envWith({ TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233', TEMPORAL_API_KEY: 'secret-key' }),
    );
    expect(withKey.tls).toEqual({});
    expect(withKey.sources).toMatchObject({ apiKey: 'TEMPORAL_API_KEY', tls: 'the API key (TEMPORAL_API_KEY)' });
    const plain = resolveTemporalTarget(
      envWith({ TEMPORAL_ADDRESS: 'proxy:7233', TEMPORAL_API_KEY: 'secret-key', TEMPORAL_TLS: 'false' }),
    );
    expect(plain.tls).toBeUndefined();
    expect(plain.sources.tls).toBe('TEMPORAL_TLS');
  });

  it('names every TEMPORAL_GRPC_META_ header as Temporal’s CLI does, each _ a -', () => {
    const target = resolveTemporalTarget(envWith({ TEMPORAL_ADDRESS: 'x:1', TEMPORAL_GRPC_META_X_TENANT_ID: 'loom' }));
    expect(target.metadata).toEqual({ 'x-tenant-id': 'loom' });
    expect(target.sources.metadata).toEqual(['x-tenant-id']);
  });

  it('warns of keys a profile file has that Temporal does not know', () => {
    const file = profileFile('typo.toml', '[profile.default]\nadress = "x:7233"\n');
    const target = resolveTemporalTarget(envWith({ TEMPORAL_CONFIG_FILE: file }));
    expect(target.embedded).toBe(true);
    expect(target.warnings).toEqual([
      `${file}: key(s) unrecognized in profile.default: adress (Temporal's profiles know address, namespace, api_key, tls, codec, grpc_meta); ignored.`,
    ]);
  });
});

describe('mistakes, each named with where it came from', () => {
  it('a profile that does not exist', () => {
    const file = profileFile('two.toml', '[profile.default]\naddress = "a:1"\n[profile.staging]\naddress = "b:1"\n');
    expect(errorOf(envWith({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'prod' }))).toBe(
      `TEMPORAL_PROFILE is "prod", but ${file} (TEMPORAL_CONFIG_FILE) has no such profile; it has "default", "staging".`,
    );
    expect(errorOf(envWith({ TEMPORAL_PROFILE: 'prod' }))).toBe(
      `TEMPORAL_PROFILE is "prod", but there is no profile file (${join(dir, 'no-config', 'temporalio', 'temporal.toml')}, Temporal's default profile file).`,
    );
  });

  it('a profile file that is missing or does not parse', () => {
    expect(errorOf(envWith({ TEMPORAL_CONFIG_FILE: join(dir, 'nope.toml') }))).toBe(
      `TEMPORAL_CONFIG_FILE names ${join(dir, 'nope.toml')}, which does not exist.`,
    );
    const broken = profileFile('broken.toml', '[profile.default\naddress = "x"\n');
    expect(errorOf(envWith({ TEMPORAL_CONFIG_FILE: broken }))).toMatch(
      new RegExp(`^${broken} \\(TEMPORAL_CONFIG_FILE\\) is not a valid Temporal profile file: `),
    );
  });

  it('an address without a port, or with a scheme', () => {
    expect(errorOf(envWith({ TEMPORAL_ADDRESS: 'temporal.internal' }))).toBe(
      'The Temporal address "temporal.internal" (TEMPORAL_ADDRESS) is not host:port: give it as host:port, such as temporal.internal:7233 (no scheme, no path).',
    );
    expect(errorOf(envWith({ TEMPORAL_ADDRESS: 'https://temporal.internal:7233' }))).toContain('is not host:port');
    expect(errorOf(envWith({ TEMPORAL_ADDRESS: 'temporal.internal:99999' }))).toContain(
      'has port 99999, which is not a port',
    );
  });

  it('a certificate path that does not exist, or a file that is not a certificate', () => {
    const base = { TEMPORAL_ADDRESS: 'x:7233', TEMPORAL_TLS_CLIENT_KEY_PATH: certs.client.key };
    expect(errorOf(envWith({ ...base, TEMPORAL_TLS_CLIENT_CERT_PATH: join(dir, 'missing.pem') }))).toBe(
      `TEMPORAL_TLS_CLIENT_CERT_PATH (${join(dir, 'missing.pem')}): cannot read it (no such file).`,
    );
    const junk = profileFile('junk.pem', 'not a certificate\n');
    expect(errorOf(envWith({ ...base, TEMPORAL_TLS_CLIENT_CERT_PATH: junk }))).toMatch(
      new RegExp(`^TEMPORAL_TLS_CLIENT_CERT_PATH \\(${junk}\\): not a PEM certificate`),
    );
    expect(errorOf(envWith({ TEMPORAL_ADDRESS: 'x:7233', TEMPORAL_TLS_SERVER_CA_CERT_PATH: junk }))).toBe(
      `TEMPORAL_TLS_SERVER_CA_CERT_PATH (${junk}): not a PEM certificate (no "-----BEGIN CERTIFICATE-----" block).`,
    );
  });

  it('a key without its certificate, a certificate without its key, a key of another certificate', () => {
    expect(errorOf(envWith({ TEMPORAL_ADDRESS: 'x:7233', TEMPORAL_TLS_CLIENT_KEY_PATH: certs.client.key }))).toBe(
      `TEMPORAL_TLS_CLIENT_KEY_PATH (${certs.client.key}) gives a client key but no certificate goes with it: set TEMPORAL_TLS_CLIENT_CERT_PATH (or tls.client_cert_path in the profile) too.`,
    );
    expect(
      errorOf(envWith({ TEMPORAL_ADDRESS: 'x:7233', TEMPORAL_TLS_CLIENT_CERT_PATH: certs.client.cert })),
    ).toContain('gives a client certificate but no key goes with it');
    expect(
      errorOf(
        envWith({
          TEMPORAL_ADDRESS: 'x:7233',
          TEMPORAL_TLS_CLIENT_CERT_PATH: certs.client.cert,
          TEMPORAL_TLS_CLIENT_KEY_PATH: certs.untrustedClient.key,
        }),
      ),
    ).toBe(
      `TEMPORAL_TLS_CLIENT_KEY_PATH (${certs.untrustedClient.key}) is not the key of the certificate in TEMPORAL_TLS_CLIENT_CERT_PATH (${certs.client.cert}).`,
    );
  });

  it('TLS, an API key or headers with the embedded dev server', () => {
    expect(errorOf(envWith({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: certs.ca.cert }))).toBe(
      "TEMPORAL_TLS_SERVER_CA_CERT_PATH is set, but no Temporal server is named (TEMPORAL_ADDRESS, or address in a profile): Loom's embedded dev server takes no TLS, API key or headers. Set TEMPORAL_ADDRESS to the server these settings are for, or unset them.",
    );
    expect(errorOf(envWith({ TEMPORAL_API_KEY: 'k' }))).toMatch(
      /^TEMPORAL_API_KEY is set, but no Temporal server is named/,
    );
  });

  it('a pasted placeholder in the API key, both the path and the data of a file, host verification turned off', () => {
    expect(errorOf(envWith({ TEMPORAL_ADDRESS: 'x:7233', TEMPORAL_API_KEY: 'eyJ…' }))).toBe(
      'The Temporal API key (TEMPORAL_API_KEY) contains "…" (U+2026) at position 4, which HTTP headers cannot carry: copy the key again, without placeholders such as "…".',
    );
    const file = profileFile(
      'both.toml',
      `[profile.default]\naddress = "x:7233"\n[profile.default.tls]\nclient_cert_path = "${certs.client.cert}"\n`,
    );
    expect(
      errorOf(
        envWith({ TEMPORAL_CONFIG_FILE: file, TEMPORAL_TLS_CLIENT_CERT_DATA: readFileSync(certs.client.cert, 'utf8') }),
      ),
    ).toBe(
      `client_cert: both a path and the data are given (TEMPORAL_TLS_CLIENT_CERT_PATH / TEMPORAL_TLS_CLIENT_CERT_DATA, or tls.client_cert_path / _data in profile "default" of ${file}): keep one.`,
    );
    expect(errorOf(envWith({ TEMPORAL_ADDRESS: 'x:7233', TEMPORAL_TLS_DISABLE_HOST_VERIFICATION: 'true' }))).toMatch(
      /^TEMPORAL_TLS_DISABLE_HOST_VERIFICATION is set, but .* set TEMPORAL_TLS_SERVER_NAME/,
    );
  });

  it('takes certificates as data too, and never keeps the key in a message', () => {
    const key = readFileSync(certs.client.key, 'utf8');
    const target = resolveTemporalTarget(
      envWith({
        TEMPORAL_ADDRESS: 'x:7233',
        TEMPORAL_TLS_CLIENT_CERT_DATA: readFileSync(certs.client.cert, 'utf8'),
        TEMPORAL_TLS_CLIENT_KEY_DATA: key,
        TEMPORAL_API_KEY: 'secret-key',
      }),
    );
    expect(target.sources.clientCert).toBe('TEMPORAL_TLS_CLIENT_CERT_DATA');
    expect(JSON.stringify(target.sources)).not.toContain('secret-key');
    expect(JSON.stringify(target.sources)).not.toContain('PRIVATE KEY');
  });
});

describe('links into the Temporal UI', () => {
  it("go to Temporal Cloud's UI for a Cloud address, the dev server's for this machine, LOOM_TEMPORAL_UI_URL's when set, and nowhere otherwise", () => {
    const at = (address: string, embedded = false) => ({ address, embedded });
    expect(temporalUiUrl(at('us-east-1.aws.api.temporal.io:7233'), {})).toBe('https://cloud.temporal.io');
    expect(temporalUiUrl(at('agents.a2b3c.tmprl.cloud:7233'), {})).toBe('https://cloud.temporal.io');
    expect(temporalUiUrl(at('127.0.0.1:7233', true), { LOOM_TEMPORAL_UI_PORT: '8300' })).toBe('http://localhost:8300');
    expect(temporalUiUrl(at('temporal.internal:7233'), {})).toBeUndefined();
    expect(temporalUiUrl(at('temporal.internal:7233'), { LOOM_TEMPORAL_UI_URL: 'https://temporal-ui.internal/' })).toBe(
      'https://temporal-ui.internal',
    );
  });
});
