import { z } from 'zod';

/** A name a shell can export. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `shell_env` (Loom only; named after OpenCode's `shell.env` plugin hook): the environment of the
 * processes tools start. A key is a variable to set (a string) or to remove (`null`); `inherit`
 * lists variables of the worker to let through although they look secret.
 */
export interface ShellEnvConfig {
  inherit?: string[];
  [name: string]: string | null | string[] | undefined;
}

/** Checked key by key, so a mistake is reported as `shell_env.<key>` with what was expected. */
export const ShellEnvConfig = z
  .record(z.string(), z.unknown(), {
    error: 'expected an object of variables, e.g. {"FOO": "bar", "inherit": ["GITHUB_TOKEN"]}',
  })
  .superRefine((value, ctx) => {
    for (const [key, entry] of Object.entries(value)) {
      if (key === 'inherit') {
        if (!Array.isArray(entry)) {
          ctx.addIssue({
            code: 'custom',
            path: [key],
            message: 'expected a list of variable names, e.g. ["GITHUB_TOKEN"]',
          });
          continue;
        }
        entry.forEach((name, index) => {
          if (typeof name !== 'string' || !ENV_NAME.test(name)) {
            ctx.addIssue({
              code: 'custom',
              path: [key, index],
              message: `${JSON.stringify(name)} is not a variable name`,
            });
          }
        });
      } else if (!ENV_NAME.test(key)) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `${JSON.stringify(key)} is not a variable name (letters, digits and _, not starting with a digit)`,
        });
      } else if (typeof entry !== 'string' && entry !== null) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `expected a string (the value to set) or null (to remove the variable), got ${JSON.stringify(entry)}`,
        });
      }
    }
  })
  .transform((value) => value as ShellEnvConfig);
