import { loadClientConfigProfile, type ClientConfigProfile, type ConfigDataSource } from '@temporalio/envconfig';
import { headerValueProblem } from '../../activities/model/header-value.js';
import { profileFile, readProfiles, type ProfileFile } from './config-file.js';
import { TemporalConfigError } from './errors.js';
import { readClientPair, readServerCa, type ClientCertPair, type TlsSetting } from './tls-material.js';

/** Which Temporal server every Loom process talks to, and how. */
export interface TemporalTarget {
  /** `host:port`. */
  address: string;
  namespace: string;
  /**
   * Loom's own dev server on this machine, started when needed: nothing (no `TEMPORAL_ADDRESS`,
   * no profile's `address`) names a server.
   */
  embedded: boolean;
  /** TLS settings; undefined for plain gRPC. */
  tls: TemporalTls | undefined;
  apiKey?: string;
  /** Extra gRPC headers (`TEMPORAL_GRPC_META_*`, a profile's `grpc_meta`). */
  metadata?: Record<string, string>;
  /** Where each setting came from, for messages and `loom status`. Never a secret's value. */
  sources: TargetSources;
  /** The profile file read, when there is one. */
  profile?: { name: string; file: string };
  /** Things worth saying that do not stop anything (keys a profile file has that Temporal does not know). */
  warnings: string[];
}

export interface TemporalTls {
  serverName?: string;
  /** PEM: the CA(s) the server's certificate must chain to; the system's roots when absent. */
  serverCa?: Buffer;
  clientCertPair?: ClientCertPair;
}

export interface TargetSources {
  address: string;
  namespace: string;
  /**
   * What turned TLS on (or off): `TEMPORAL_TLS`, `TEMPORAL_TLS_CLIENT_CERT_PATH`, `the API key (…)`, a profile's `tls`.
   */
  tls?: string;
  apiKey?: string;
  clientCert?: string;
  serverCa?: string;
  serverName?: string;
  /** Header names only: their values may be credentials. */
  metadata?: string[];
}

const META_PREFIX = 'TEMPORAL_GRPC_META_';

/**
 * Reads which Temporal to use the way Temporal's CLI and SDKs do (`@temporalio/envconfig`): the
 * profile `TEMPORAL_PROFILE` (else `default`) of the TOML file `TEMPORAL_CONFIG_FILE` (else the
 * default location), overridden by the `TEMPORAL_*` variables. Every mistake is an error naming
 * the setting and where it was set, before any connection is tried.
 */
export function resolveTemporalTarget(env: NodeJS.ProcessEnv = process.env): TemporalTarget {
  const variables = temporalVariables(env);
  const file = profileFile(env);
  if (variables.TEMPORAL_CONFIG_FILE && !file?.exists)
    throw new TemporalConfigError(
      `TEMPORAL_CONFIG_FILE names ${variables.TEMPORAL_CONFIG_FILE}, which does not exist.`,
    );
  const { profiles, warnings } = file ? readProfiles(file) : { profiles: {}, warnings: [] };
  const profileName = variables.TEMPORAL_PROFILE ?? 'default';
  if (variables.TEMPORAL_PROFILE && !profiles[profileName])
    throw new TemporalConfigError(unknownProfile(profileName, file, profiles));
  const fromFile: ClientConfigProfile = profiles[profileName] ?? {};
  const inProfile = file?.exists && profiles[profileName] ? `profile "${profileName}" of ${file.path}` : undefined;
  const effective = effectiveProfile(file, variables, inProfile);
  const from = (variable: string, key: string, inFile: unknown) =>
    variables[variable] !== undefined ? variable : inFile !== undefined ? `${key} in ${inProfile}` : undefined;

  const address = effective.address;
  const embedded = address === undefined;
  const target: TemporalTarget = {
    address: address ?? `127.0.0.1:${env.LOOM_TEMPORAL_PORT || 7233}`,
    namespace: effective.namespace ?? 'default',
    embedded,
    tls: undefined,
    sources: {
      address:
        from('TEMPORAL_ADDRESS', 'address', fromFile.address) ??
        `Loom's embedded dev server${env.LOOM_TEMPORAL_PORT ? ' (LOOM_TEMPORAL_PORT)' : ''}`,
      namespace: from('TEMPORAL_NAMESPACE', 'namespace', fromFile.namespace) ?? 'default',
    },
    profile: inProfile ? { name: profileName, file: file!.path } : undefined,
    warnings,
  };
  if (!embedded) checkAddress(address, target.sources.address);

  if (effective.apiKey !== undefined) {
    target.sources.apiKey = from('TEMPORAL_API_KEY', 'api_key', fromFile.apiKey);
    const problem = headerValueProblem(effective.apiKey, `The Temporal API key (${target.sources.apiKey})`);
    if (problem) throw new TemporalConfigError(problem);
    target.apiKey = effective.apiKey;
  }
  const metadata = grpcMetadata(effective, variables);
  if (metadata) {
    target.metadata = metadata;
    target.sources.metadata = Object.keys(metadata);
  }
  target.tls = tlsOf(effective, fromFile, variables, from, target);
  if (embedded) refuseCredentialsForEmbedded(target);
  return target;
}

/** The `TEMPORAL_*` variables that are set; an empty one counts as unset, as Loom has always read them. */
function temporalVariables(env: NodeJS.ProcessEnv): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('TEMPORAL_') || value === undefined) continue;
    // An empty TEMPORAL_GRPC_META_X removes header x, as Temporal's tools read it.
    if (value !== '' || name.startsWith(META_PREFIX)) variables[name] = value;
  }
  return variables;
}

function effectiveProfile(
  file: ProfileFile | undefined,
  variables: Record<string, string>,
  inProfile: string | undefined,
): ClientConfigProfile {
  try {
    return loadClientConfigProfile({
      ...(file?.exists ? { configSource: { path: file.path } } : { disableFile: true }),
      overrideEnvVars: variables,
    });
  } catch (error) {
    // Both a path and the data of one file: one from the profile, the other from a variable.
    const both = /Cannot specify both (\w+)_path and \w+_data/.exec((error as Error).message);
    if (both) {
      const variable = `TEMPORAL_TLS_${both[1]!.toUpperCase()}`;
      throw new TemporalConfigError(
        `${both[1]}: both a path and the data are given (${variable}_PATH / ${variable}_DATA${inProfile ? `, or tls.${both[1]}_path / _data in ${inProfile}` : ''}): keep one.`,
      );
    }
    throw new TemporalConfigError(`Cannot read the Temporal settings: ${(error as Error).message}`);
  }
}

function unknownProfile(name: string, file: ProfileFile | undefined, profiles: Record<string, unknown>): string {
  if (!file?.exists)
    return `TEMPORAL_PROFILE is "${name}", but there is no profile file (${file ? `${file.path}, ${file.source}` : 'set TEMPORAL_CONFIG_FILE'}).`;
  const names = Object.keys(profiles);
  return `TEMPORAL_PROFILE is "${name}", but ${file.path} (${file.source}) has no such profile; it has ${names.length ? names.map((n) => `"${n}"`).join(', ') : 'none'}.`;
}

/** Temporal's addresses are `host:port`; a missing port would otherwise surface as a timeout. */
function checkAddress(address: string, source: string): void {
  const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):(\d+)$/.exec(address);
  if (!match) {
    const example = /^[^\s:/]+$/.test(address) ? ` such as ${address}:7233` : ' such as temporal.example.com:7233';
    throw new TemporalConfigError(
      `The Temporal address "${address}" (${source}) is not host:port: give it as host:port,${example} (no scheme, no path).`,
    );
  }
  const port = Number(match[2]);
  if (port < 1 || port > 65535)
    throw new TemporalConfigError(
      `The Temporal address "${address}" (${source}) has port ${match[2]}, which is not a port (1-65535).`,
    );
}

/**
 * `TEMPORAL_GRPC_META_X_REQUEST_ID` is the header `x-request-id`: the SDK's reader turns only the
 * first `_` into `-` (`x-request_id`), Temporal's CLI every one; Loom follows the CLI.
 */
function grpcMetadata(
  effective: ClientConfigProfile,
  variables: Record<string, string>,
): Record<string, string> | undefined {
  const metadata = { ...effective.grpcMeta };
  for (const [name, value] of Object.entries(variables)) {
    if (!name.startsWith(META_PREFIX)) continue;
    const suffix = name.slice(META_PREFIX.length).toLowerCase();
    const sdkKey = suffix.replace('_', '-');
    const key = suffix.replaceAll('_', '-');
    delete metadata[sdkKey];
    if (value) metadata[key] = value;
  }
  for (const [key, value] of Object.entries(metadata)) {
    const problem = headerValueProblem(value, `The gRPC header "${key}"`);
    if (problem) throw new TemporalConfigError(problem);
  }
  return Object.keys(metadata).length ? metadata : undefined;
}

type SourceOf = (variable: string, key: string, inFile: unknown) => string | undefined;

/**
 * TLS is on when any TLS setting is (and `TEMPORAL_TLS` is not false), or an API key is given, as in Temporal's SDKs.
 */
function tlsOf(
  effective: ClientConfigProfile,
  fromFile: ClientConfigProfile,
  variables: Record<string, string>,
  from: SourceOf,
  target: TemporalTarget,
): TemporalTls | undefined {
  if (
    variables.TEMPORAL_TLS_DISABLE_HOST_VERIFICATION === 'true' ||
    variables.TEMPORAL_TLS_DISABLE_HOST_VERIFICATION === '1'
  ) {
    throw new TemporalConfigError(
      "TEMPORAL_TLS_DISABLE_HOST_VERIFICATION is set, but Temporal's TypeScript SDK, which Loom uses, always checks the server's name: " +
        "set TEMPORAL_TLS_SERVER_NAME to the name in the server's certificate instead.",
    );
  }
  const tls = effective.tls;
  const fileTls = fromFile.tls;
  if (tls?.disabled) {
    target.sources.tls = from('TEMPORAL_TLS', 'tls.disabled', fileTls?.disabled);
    return undefined;
  }
  if (!tls && effective.apiKey === undefined) return undefined;
  const setting = (
    field: 'client_cert' | 'client_key' | 'server_ca_cert',
    value: ConfigDataSource | undefined,
  ): TlsSetting | undefined => {
    if (!value) return undefined;
    const kind = 'path' in value ? 'path' : 'data';
    const variable = `TEMPORAL_TLS_${field.toUpperCase()}_${kind.toUpperCase()}`;
    const inFile = fileTls?.[camel(field)];
    return {
      value,
      source: from(variable, `tls.${field}_${kind}`, inFile && kind in inFile ? inFile : undefined) ?? variable,
    };
  };
  const result: TemporalTls = {};
  const serverCa = setting('server_ca_cert', tls?.serverCACert);
  if (serverCa) {
    result.serverCa = readServerCa(serverCa);
    target.sources.serverCa = serverCa.source;
  }
  const cert = setting('client_cert', tls?.clientCert);
  result.clientCertPair = readClientPair(cert, setting('client_key', tls?.clientKey));
  if (cert) target.sources.clientCert = cert.source;
  if (tls?.serverName) {
    result.serverName = tls.serverName;
    target.sources.serverName = from('TEMPORAL_TLS_SERVER_NAME', 'tls.server_name', fileTls?.serverName);
  }
  target.sources.tls = tls
    ? (from('TEMPORAL_TLS', 'tls', fileTls) ?? firstTlsVariable(variables) ?? 'tls')
    : `the API key (${target.sources.apiKey})`;
  return result;
}

function camel(field: 'client_cert' | 'client_key' | 'server_ca_cert'): 'clientCert' | 'clientKey' | 'serverCACert' {
  return field === 'client_cert' ? 'clientCert' : field === 'client_key' ? 'clientKey' : 'serverCACert';
}

function firstTlsVariable(variables: Record<string, string>): string | undefined {
  return Object.keys(variables).find((name) => name.startsWith('TEMPORAL_TLS_'));
}

/** The embedded dev server speaks plain gRPC and checks nothing: credentials there mean a server was meant. */
function refuseCredentialsForEmbedded(target: TemporalTarget): void {
  const setting =
    target.sources.apiKey ??
    (target.tls ? target.sources.tls : undefined) ??
    (target.sources.metadata ? `the gRPC header ${target.sources.metadata[0]}` : undefined);
  if (!setting) return;
  throw new TemporalConfigError(
    `${setting} is set, but no Temporal server is named (TEMPORAL_ADDRESS, or address in a profile): ` +
      "Loom's embedded dev server takes no TLS, API key or headers. Set TEMPORAL_ADDRESS to the server these settings are for, or unset them.",
  );
}
