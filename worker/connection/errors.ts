/**
 * A mistake in the settings that say which Temporal to use (the `TEMPORAL_*` variables or a
 * profile): found before anything starts, and named with where it came from.
 */
export class TemporalConfigError extends Error {
  override name = 'TemporalConfigError';
}

/**
 * The Temporal server could not be used with these settings: unreachable, a credential refused,
 * an unknown namespace. The message says which, and what to check.
 */
export class TemporalRefusedError extends Error {
  override name = 'TemporalRefusedError';
}
