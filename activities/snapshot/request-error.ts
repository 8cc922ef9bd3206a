/** Why a request about a session's files cannot be done: the session or message is unknown, the session is busy, or the request is wrong. */
export type FilesRequestProblem = 'unknown' | 'busy' | 'invalid';

/** A request about a session's files that cannot be done as asked: not worth retrying. */
export class FilesRequestError extends Error {
  override name = 'FilesRequestError';
  constructor(
    message: string,
    readonly problem: FilesRequestProblem = 'invalid',
  ) {
    super(message);
  }
}
