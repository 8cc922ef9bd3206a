/**
 * Provider metadata and provider options are both `{provider: {key: value}}`: merged provider by
 * provider, later keys winning, so a block's signature joins what its start said and a cache mark
 * joins a message's other options.
 */
export function mergeByProvider<T extends Record<string, Record<string, unknown>>>(base: T | undefined, added: T): T {
  const merged: Record<string, Record<string, unknown>> = { ...base };
  for (const [provider, values] of Object.entries(added)) merged[provider] = { ...merged[provider], ...values };
  return merged as T;
}
