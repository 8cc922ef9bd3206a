/** A read-modify-write found no row with the id it was given. */
export class NotFoundError extends Error {
  override name = 'NotFoundError';
}
