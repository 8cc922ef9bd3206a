/** The gRPC status a refusal carries, from either of Temporal's clients. */
export interface GrpcStatus {
  code: number;
  details: string;
}

/** How tonic describes gRPC codes in the errors of a worker's native connection (`code: '…', message: "…"`). */
const TONIC_CODES: Record<string, number> = {
  'The operation was cancelled': 1,
  'Unknown error': 2,
  'Client specified an invalid argument': 3,
  'The deadline expired before the operation could complete': 4,
  'Some requested entity was not found': 5,
  'The caller does not have permission to execute the specified operation': 7,
  "The system is not in a state required for the operation's execution": 9,
  'The service is currently unavailable': 14,
  'The request does not have valid authentication credentials': 16,
};

export function grpcStatus(error: unknown): GrpcStatus | undefined {
  for (let cause: unknown = error; cause instanceof Error; cause = (cause as { cause?: unknown }).cause) {
    const { code, details } = cause as { code?: unknown; details?: unknown };
    // A client's ServiceError may carry the server's words in its message, with empty details.
    if (typeof code === 'number' && typeof details === 'string') return { code, details: details || cause.message };
    const native = /code: '([^']+)', message: "((?:[^"\\]|\\.)*)"/.exec(cause.message);
    if (native && TONIC_CODES[native[1]!] !== undefined) return { code: TONIC_CODES[native[1]!]!, details: native[2]! };
  }
  return undefined;
}

/** Every message in the error's chain, for matching what went wrong on the wire. */
export function describeCause(error: unknown): string {
  const parts: string[] = [];
  for (let cause: unknown = error; cause instanceof Error; cause = (cause as { cause?: unknown }).cause) {
    parts.push(cause.message);
    const details = (cause as { details?: unknown }).details;
    if (typeof details === 'string' && details && !cause.message.includes(details)) parts.push(details);
  }
  // grpc-js ends its connection errors with an empty "Resolution note:".
  return parts.length ? parts.join(': ').replace(/\.?\s*Resolution note:\s*$/, '') : String(error);
}
