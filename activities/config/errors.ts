import type { z } from 'zod';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** `{env:VAR}` becomes the variable's value, or nothing when it is unset (as in OpenCode). */
export function substituteEnv(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(/\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => env[name] ?? '');
}

/** Parses `value` with `schema`, or throws a `ConfigError` naming `label` and each bad key. */
export function validate<T extends z.ZodType>(schema: T, value: unknown, label: string): z.output<T> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map((issue) => {
    const key = issue.path.length ? issue.path.join('.') : '(top level)';
    return `  ${key}: ${issue.message}`;
  });
  throw new ConfigError(`${label}: invalid configuration\n${lines.join('\n')}`);
}
