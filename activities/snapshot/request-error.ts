/** A request about a session's files that cannot be done as asked (unknown message, busy session): not worth retrying. */
export class FilesRequestError extends Error {
  override name = 'FilesRequestError';
}
