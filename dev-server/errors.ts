/** A failure reported as `temporal-dev.sh: error: <message>`, exit code 1. */
export class DevServerError extends Error {
  override name = 'DevServerError';
}

/** A bad command line or setting, reported with the usage text, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}
