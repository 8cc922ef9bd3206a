import { RequestError } from '@agentclientprotocol/sdk';
import { errorMessage } from '../../core/text/error-message.js';

/** A session id no store row has: the error names it. */
export function unknownSession(sessionId: string): RequestError {
  return new RequestError(-32002, `Unknown session "${sessionId}". \`loom ls --all\` lists sessions.`, { sessionId });
}

/**
 * Runs a handler so that what it throws reaches the editor as a JSON-RPC error carrying Loom's
 * own words (the SDK would answer a plain Error with "Internal error" and hide them in `data`).
 */
export async function withLoomErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof RequestError) throw error;
    throw new RequestError(-32603, errorMessage(error));
  }
}
