import { z } from 'zod';
import type { PermissionAction, PermissionConfig } from '../rules/permission.js';

// The `permission` key of the config as a zod schema; apart from `permission.ts`, which workflows
// load (every module a workflow imports is evaluated again for each one).

const ACTIONS: readonly string[] = ['allow', 'ask', 'deny'];
const ACTION_MESSAGE = 'must be "allow", "ask" or "deny"';

function isAction(value: unknown): value is PermissionAction {
  return typeof value === 'string' && ACTIONS.includes(value);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return 'an array';
  return value === null ? 'null' : typeof value;
}

/**
 * Validated by hand rather than with `z.union`: a union reports only "Invalid input" at the top,
 * while this names the key at fault (`read.*.env: must be "allow", "ask" or "deny", got "alow"`).
 * The value passes through untouched, so key order survives. (`z.toJSONSchema` cannot describe a
 * custom schema; nothing converts the config today.)
 */
export const PermissionConfigSchema: z.ZodType<PermissionConfig> = z
  .custom<PermissionConfig>()
  .superRefine((config, ctx) => {
    const fail = (path: string[], expected: string, value: unknown) =>
      ctx.addIssue({ code: 'custom', path, message: `${expected}, got ${describe(value)}` });
    if (typeof config === 'string' || !isObject(config)) {
      if (!isAction(config)) fail([], `${ACTION_MESSAGE}, or an object of permissions`, config);
      return;
    }
    for (const [permission, value] of Object.entries(config)) {
      if (isAction(value)) continue;
      if (!isObject(value)) {
        fail([permission], `${ACTION_MESSAGE}, or an object of {pattern: action}`, value);
        continue;
      }
      for (const [pattern, action] of Object.entries(value)) {
        if (!isAction(action)) fail([permission, pattern], ACTION_MESSAGE, action);
      }
    }
  });
