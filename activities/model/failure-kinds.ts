// What a failed model call was, as the workflow, the retry policies and the CLI read it. Apart from
// errors.ts (which classifies the AI SDK's errors) so that the CLI need not load the AI SDK.

/** Failure types the workflow, retry policies and the CLI act on. */
export const ModelFailure = {
  auth: 'ModelAuthError',
  badRequest: 'ModelBadRequest',
  notFound: 'ModelNotFound',
  contextOverflow: 'ContextOverflow',
  rateLimited: 'ModelRateLimited',
  /** A 429 that waiting will not fix: the account is out of credit. */
  quota: 'ModelQuotaExceeded',
  server: 'ModelServerError',
  unreachable: 'ModelUnreachable',
  /** The answer stopped arriving (no byte for the configured time): retried like a network error. */
  streamIdle: 'ModelStreamIdle',
  /** No text, reasoning or tool call, however often asked: retrying the same request will not help. */
  emptyResponse: 'ModelEmptyResponse',
  config: 'ConfigError',
  other: 'ModelError',
} as const;

/** Network failures that, on a session's first model call, mean a mistake in the set-up rather than an outage. */
export type SetupProblem = 'unknown-host' | 'refused';

export const SETUP_HINTS: Record<SetupProblem, string> = {
  'unknown-host': "the host name does not resolve (check the provider's options.baseURL, or the network)",
  refused: "nothing is listening there (is the model server running? check the provider's options.baseURL)",
};

/** Attempts before a session that never reached its model gives up on an unknown host or a refused connection. */
export const SETUP_ATTEMPTS = 3;

/** Whether a failure's message says it looks like set-up (see `SETUP_HINTS`): such a call gives up early. */
export function hasSetupHint(message: string): boolean {
  return Object.values(SETUP_HINTS).some((hint) => message.includes(hint));
}

/** Whether a failed call looks like set-up: an unknown host, or a refused connection. */
export function setupProblem(error: unknown): SetupProblem | undefined {
  const codes = new Set<string>();
  const visit = (current: unknown, depth: number) => {
    if (!current || typeof current !== 'object' || depth > 10) return;
    const { code, cause, errors } = current as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof code === 'string') codes.add(code);
    visit(cause, depth + 1);
    if (Array.isArray(errors)) for (const inner of errors) visit(inner, depth + 1);
  };
  visit(error, 0);
  if (codes.has('ENOTFOUND') || codes.has('EAI_AGAIN')) return 'unknown-host';
  if (codes.has('ECONNREFUSED')) return 'refused';
  return undefined;
}
