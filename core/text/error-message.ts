/** What went wrong, in words: an Error's message, or anything else thrown as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The innermost error of a chain of causes (Temporal wraps an activity's or a child's own error in its failures). */
export function innermostCause(error: unknown): unknown {
  let current = error as { cause?: unknown } | undefined;
  while (current?.cause) current = current.cause as typeof current;
  return current;
}
