import type { SilenceLimit, StreamLimits } from './stream-limits.js';

/** A model endpoint stayed silent past its limit; the request was aborted so it can be retried. */
export class ModelStreamIdleError extends Error {
  override name = 'ModelStreamIdleError';

  constructor(
    readonly model: string,
    readonly url: string,
    readonly limit: SilenceLimit & { ms: number },
    /** Bytes of the answer received before the silence; 0: it never started. */
    readonly bytes: number,
  ) {
    const when =
      bytes === 0 ? 'after the request, before the first byte of its answer' : `mid-answer, after ${bytes} bytes`;
    super(`${model} sent nothing for ${seconds(limit.ms)} ${when} (${url}; limit: ${limit.source})`);
  }
}

/**
 * Wraps `fetch` for a provider so that a request whose answer stops arriving is aborted: one limit
 * from the request to the first byte of the answer, another between reads once bytes flow. Only
 * the wait for data counts (a slow reader is not a silent server), and any byte counts, keep-alive
 * comments included, as OpenCode's `chunkTimeout` does. The caller's signal (the activity's
 * cancellation) still aborts the request; a timeout aborts it with a `ModelStreamIdleError`.
 */
export function watchedFetch(model: string, limits: StreamLimits, base: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const controller = new AbortController();
    const signal = init?.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal;
    let bytes = 0;
    let timer: NodeJS.Timeout | undefined;
    /** Rejects the read in progress, if any, when the limit passes. */
    let interrupt: ((error: Error) => void) | undefined;
    const stop = () => clearTimeout(timer);
    const arm = (limit: SilenceLimit) => {
      stop();
      const ms = limit.ms;
      if (ms === undefined) return;
      timer = setTimeout(() => {
        const error = new ModelStreamIdleError(model, url, { ...limit, ms }, bytes);
        controller.abort(error);
        interrupt?.(error);
      }, ms);
    };
    init?.signal?.addEventListener('abort', stop, { once: true });

    arm(limits.firstByte);
    let response: Response;
    try {
      response = await base(input, { ...init, signal });
    } catch (error) {
      stop();
      throw controller.signal.aborted ? controller.signal.reason : error;
    }
    // A JSON answer (an error, or a call that does not stream) comes whole; only streams go quiet.
    if (!response.body || !response.headers.get('content-type')?.includes('text/event-stream')) {
      stop();
      return response;
    }
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(stream) {
        if (bytes > 0) arm(limits.idle);
        try {
          const part = await new Promise<Awaited<ReturnType<typeof reader.read>>>((resolve, reject) => {
            interrupt = reject;
            reader.read().then(resolve, reject);
          });
          if (part.done) {
            stop();
            stream.close();
            return;
          }
          bytes += part.value.byteLength;
          // The first-byte limit runs on until a byte comes; the idle one only while a read waits.
          if (bytes > 0) stop();
          stream.enqueue(part.value);
        } catch (error) {
          stop();
          const reason = controller.signal.aborted ? controller.signal.reason : error;
          void reader.cancel(reason).catch(() => undefined);
          throw reason;
        } finally {
          interrupt = undefined;
        }
      },
      async cancel(reason) {
        stop();
        controller.abort(reason);
        await reader.cancel(reason).catch(() => undefined);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function seconds(ms: number): string {
  return `${ms >= 10_000 ? Math.round(ms / 1000) : Math.round(ms / 100) / 10} s`;
}
