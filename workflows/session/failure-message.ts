/** What went wrong, as the failure's cause says it when it has one (an activity's own error). */
export function failureMessage(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? cause.message : error.message;
  }
  return String(error);
}
