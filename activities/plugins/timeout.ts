/**
 * `work`'s result; `timedOut()` is thrown once `ms` have passed (a hanging plugin cannot stall a
 * run), and any failure of `work` comes out as `failed(error)`.
 */
export async function withTimeout<T>(
  work: Promise<T>,
  ms: number,
  timedOut: () => Error,
  failed: (error: unknown) => Error,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut()), ms);
  });
  try {
    return await Promise.race([work.catch((error: unknown) => Promise.reject(failed(error))), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
