/**
 * HTTP headers carry Latin-1 only: a key pasted with `…` or a smart quote would fail every request
 * with a cryptic ByteString error, retried for minutes. Said at once instead, as a setting to fix:
 * the problem with `value` (named `what` in the message), or undefined when it can be sent.
 */
export function headerValueProblem(value: string, what: string): string | undefined {
  const index = [...value].findIndex((char) => char.charCodeAt(0) > 0xff || char.charCodeAt(0) < 0x20);
  if (index < 0) return undefined;
  const char = [...value][index]!;
  return `${what} contains ${JSON.stringify(char)} (U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}) at position ${index + 1}, which HTTP headers cannot carry: copy the key again, without placeholders such as "…".`;
}
