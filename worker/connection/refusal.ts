import { describeCause, grpcStatus } from './error-details.js';
import type { TemporalTarget } from './target.js';

/** gRPC status codes a refusal comes with. */
const PERMISSION_DENIED = 7;
const UNAUTHENTICATED = 16;
const NOT_FOUND = 5;
const DEADLINE_EXCEEDED = 4;

/**
 * Why the target refused a connection, in one line naming the address, the namespace and the
 * setting to fix. `error` comes from either of Temporal's clients: the SDK's `Connection` (grpc-js
 * and Node's TLS) or a worker's `NativeConnection` (Rust: tonic and rustls), which word the same
 * failures differently.
 */
export function refusalMessage(error: unknown, target: TemporalTarget): string {
  return `Cannot use Temporal at ${target.address} (${target.sources.address}), namespace ${target.namespace}: ${refusalReason(error, target)}`;
}

/** Why describing the target's namespace failed: it does not exist, or the credentials may not use it. */
export function namespaceRefusalMessage(error: unknown, target: TemporalTarget): string {
  const status = grpcStatus(error);
  const where = `Temporal at ${target.address} (${target.sources.address})`;
  if (status?.code === NOT_FOUND) {
    return `${where} has no namespace "${target.namespace}" (${target.sources.namespace}). Check the name${target.embedded ? ': the embedded dev server has only "default"' : ', or create it'}.`;
  }
  if (status?.code === PERMISSION_DENIED || status?.code === UNAUTHENTICATED) {
    return `${where} does not let ${credentialName(target)} use namespace "${target.namespace}" (${target.sources.namespace}): the server said "${status.details}".`;
  }
  return refusalMessage(error, target);
}

function refusalReason(error: unknown, target: TemporalTarget): string {
  const status = grpcStatus(error);
  const text = describeCause(error);
  const tls = target.tls;
  if (status?.code === UNAUTHENTICATED || status?.code === PERMISSION_DENIED)
    return credentialsRefused(target, status.details);
  if (/ECONNREFUSED|Connection refused/i.test(text))
    return 'nothing answers there (is the server running, and is this its gRPC port?).';
  if (
    /ENOTFOUND|EAI_AGAIN|Name resolution failed|failed to lookup address|Name or service not known|dns error/i.test(
      text,
    )
  ) {
    return 'the host name does not resolve (check the address, or the network).';
  }
  if (/certificate required|alert number 116|CertificateRequired/i.test(text)) {
    return tls?.clientCertPair
      ? `the server refused the client certificate (${target.sources.clientCert}) during the TLS handshake.`
      : `the server wants a client certificate (mutual TLS): set ${CLIENT_PAIR}.`;
  }
  if (
    /unknown ca|alert number 48|bad certificate|alert number 42|alert number 40|UnknownCA|BadCertificate/i.test(text) &&
    tls?.clientCertPair
  ) {
    return `the server refused the client certificate (${target.sources.clientCert}): it is not signed by a CA the server trusts.`;
  }
  if (/ALTNAME|altnames|NotValidForName/i.test(text)) {
    const names = presentedNames(text);
    const asked = tls?.serverName
      ? `${tls.serverName} (${target.sources.serverName})`
      : target.address.replace(/:\d+$/, '');
    return `the server's certificate is not for ${asked}${names ? ` but for ${names}` : ''}: set TEMPORAL_TLS_SERVER_NAME to the name in its certificate.`;
  }
  if (
    /self[- ]signed|unable to get (?:local )?issuer|unable to verify|UnknownIssuer|certificate verify failed|CERT_HAS_EXPIRED|certificate has expired|Expired\b/i.test(
      text,
    )
  ) {
    if (/CERT_HAS_EXPIRED|certificate has expired|Expired\b/i.test(text))
      return "the server's certificate has expired.";
    return tls?.serverCa
      ? `the server's certificate is not signed by the CA in ${target.sources.serverCa}.`
      : "the server's certificate is not signed by a CA this machine trusts: set TEMPORAL_TLS_SERVER_CA_CERT_PATH to the CA that signed it.";
  }
  if (
    tls &&
    /wrong version number|packet length too long|InvalidContentType|CorruptMessage|first record does not look like a TLS handshake/i.test(
      text,
    )
  ) {
    return `the server does not speak TLS there, but TLS is on (${target.sources.tls}): use the server's TLS port, or set TEMPORAL_TLS=false for a server without TLS.`;
  }
  if (!tls && /Protocol error|h2 protocol error|FRAME_SIZE_ERROR|Received HTTP status code 400/i.test(text)) {
    return 'the server did not answer plain gRPC: if it wants TLS, set TEMPORAL_TLS=true (Temporal Cloud and most clusters do).';
  }
  // A server that checks client certificates after TLS 1.3's handshake just closes the connection.
  if (
    tls &&
    /Failed to connect|connection closed|ConnectionReset|broken pipe|close_notify|socket disconnected|ECONNRESET/i.test(
      text,
    )
  ) {
    return tls.clientCertPair
      ? `the server closed the connection during TLS set-up: it probably does not trust the client certificate (${target.sources.clientCert}).`
      : `the server closed the connection during TLS set-up: it probably wants a client certificate (mutual TLS): set ${CLIENT_PAIR}.`;
  }
  if (status?.code === DEADLINE_EXCEEDED || /deadline|timed out|timeout/i.test(text)) {
    return 'nothing answered in time (a firewall, or the wrong port?).';
  }
  return `${text.replace(/\.$/, '')}.`;
}

const CLIENT_PAIR =
  'TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH (or tls.client_cert_path and tls.client_key_path in the profile)';

/** The names a server's certificate holds, as Node's TLS or rustls listed them in a name mismatch. */
function presentedNames(text: string): string | undefined {
  const node = /is not in the cert's (?:altnames|list): ([^\n]*?)\.?(?: Resolution note|$)/m
    .exec(text)?.[1]
    ?.replace(/DNS:|IP Address:/g, '')
    .trim();
  if (node) return node;
  const rustls = [...text.matchAll(/(?:DnsName|IpAddress)\(\\?"([^"\\]+)\\?"\)/g)].map((match) => match[1]);
  return rustls.length ? rustls.join(', ') : undefined;
}

function credentialsRefused(target: TemporalTarget, said: string): string {
  const server = said ? ` (the server said "${said}")` : '';
  if (target.apiKey !== undefined)
    return `the API key (${target.sources.apiKey}) was refused${server}. Check it, or make a new one.`;
  if (target.tls?.clientCertPair)
    return `the client certificate (${target.sources.clientCert}) was refused${server}: it is not signed by a CA the server trusts, or not allowed.`;
  if (/certificate/i.test(said)) return `the server wants a client certificate${server}: set ${CLIENT_PAIR}.`;
  return `the server wants credentials${server}: an API key (TEMPORAL_API_KEY) or a client certificate (${CLIENT_PAIR}).`;
}

function credentialName(target: TemporalTarget): string {
  if (target.apiKey !== undefined) return `the API key (${target.sources.apiKey})`;
  if (target.tls?.clientCertPair) return `the client certificate (${target.sources.clientCert})`;
  return 'these credentials';
}
