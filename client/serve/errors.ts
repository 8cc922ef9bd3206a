import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { InputError } from '../input-error.js';
import { BudgetInputError } from '../services/budgets.js';

/** An error with the HTTP status it answers with; its message names what is at fault. */
export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
  ) {
    super(message);
  }
}

export const ErrorBody = z
  .object({
    error: z.string(),
    issues: z
      .array(z.object({ path: z.array(z.union([z.string(), z.number()])), message: z.string(), code: z.string() }))
      .optional(),
    name: z.string().openapi({ description: "OpenCode's error name (`BadRequest`, `NotFoundError`, …)" }),
    data: z
      .object({ message: z.string() })
      .openapi({ description: "OpenCode's shape of `error`, which its SDK shows" }),
  })
  .openapi('Error');

const ERROR_NAMES: Partial<Record<number, string>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFoundError',
  409: 'Conflict',
  500: 'UnknownError',
};

/** An error body: Loom's `error`, and OpenCode's `{name, data: {message}}` so its SDK shows the same words. */
export function errorBody(status: number, message: string): { error: string; name: string; data: { message: string } } {
  return { error: message, name: ERROR_NAMES[status] ?? 'UnknownError', data: { message } };
}

export const unknownSession = (id: string) =>
  new HttpError(404, `Unknown session "${id}". GET /session lists sessions.`);

/** An invalid body or query: 400 with every zod issue, so a client can fix them all at once. */
export function invalidInput(
  result: { success: boolean; error?: z.ZodError; target?: string },
  c: Context,
): Response | undefined {
  if (result.success || !result.error) return undefined;
  const issues = result.error.issues.map((issue) => ({
    path: issue.path.map((key) => (typeof key === 'number' ? key : String(key))),
    message: issue.message,
    code: issue.code,
  }));
  const where = result.target ? ` (${result.target})` : '';
  const message = `Invalid request${where}: ${issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ')}`;
  return c.json({ ...errorBody(400, message), issues }, 400);
}

/**
 * Errors meant for a person (`InputError`: an unknown agent, a prompt over the limit, a bad model
 * id) are the caller's to fix: 400. Anything else is ours: 500, with the message but no stack.
 */
export function errorResponse(error: Error, c: Context): Response {
  if (error instanceof HttpError) return c.json(errorBody(error.status, error.message), error.status);
  if (error instanceof InputError || error instanceof BudgetInputError)
    return c.json(errorBody(400, error.message), 400);
  // Hono's own refusals, such as a body that is not JSON.
  if (error instanceof HTTPException)
    return c.json(errorBody(error.status, error.message || `HTTP ${error.status}`), error.status);
  return c.json(errorBody(500, `Internal error: ${error.message}`), 500);
}
