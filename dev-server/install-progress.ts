import type { Output } from './output.js';

/** How far a download got, when it can be known; or the step it is at, when not downloading. */
export interface Received {
  bytes?: number;
  total?: number;
  step?: string;
}

export const megabytes = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;

export function duration(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}

/**
 * Says every `output.progressEveryMs`, until the returned function is called, how far a step got:
 * `downloaded 12.3 MB of 44.5 MB (27%), 6.0 s` when bytes can be counted, else the time so far.
 */
export function watchProgress(output: Output, what: string, sample: () => Received = () => ({})): () => void {
  const started = Date.now();
  const timer = setInterval(
    () => output.progress(progressLine(what, sample(), Date.now() - started)),
    output.progressEveryMs,
  );
  return () => clearInterval(timer);
}

export function progressLine(what: string, { bytes, total, step }: Received, elapsedMs: number): string {
  const time = duration(elapsedMs);
  if (step) return `${step}: ${time} so far …`;
  if (bytes === undefined) return `${what}: ${time} so far …`;
  if (!total) return `${what} ${megabytes(bytes)}, ${time}`;
  return `${what} ${megabytes(bytes)} of ${megabytes(total)} (${Math.floor((Math.min(bytes, total) / total) * 100)}%), ${time}`;
}
