import { SCRIPT_NAME } from './config.js';

/** Where a command writes: results on `out` (stdout), progress and errors on `log` (stderr). */
export interface Output {
  out(line: string): void;
  /** One line of progress, prefixed with the script's name. */
  log(line: string): void;
  /** Text written to stderr as it is (the usage text after a usage error). */
  err(text: string): void;
  /**
   * A line about installing the Temporal CLI: written like `log`, and also shown by callers that
   * keep the other lines to themselves (`loom run` starting the server), since an install takes a while.
   */
  progress(line: string): void;
  /** How often a long install says how far it got: every few seconds on a terminal, sparsely into a log. */
  progressEveryMs: number;
}

const TERMINAL_EVERY_MS = 3_000;
const LOG_EVERY_MS = 20_000;

/** The interval for progress lines on a stream: frequent on a terminal, sparse into a file or pipe. */
export const progressInterval = (stream: { isTTY?: boolean }) => (stream.isTTY ? TERMINAL_EVERY_MS : LOG_EVERY_MS);

export const processOutput: Output = {
  out: (line) => void process.stdout.write(`${line}\n`),
  log: (line) => void process.stderr.write(`${SCRIPT_NAME}: ${line}\n`),
  err: (text) => void process.stderr.write(text),
  progress: (line) => processOutput.log(line),
  progressEveryMs: progressInterval(process.stderr),
};

/** An Output that keeps what is written, for callers in this process; install progress goes to `onProgress` if given. */
export function captureOutput(
  options: { onProgress?: (line: string) => void; progressEveryMs?: number } = {},
): Output & { stdout: () => string; stderr: () => string } {
  let stdout = '';
  let stderr = '';
  const log = (line: string) => void (stderr += `${SCRIPT_NAME}: ${line}\n`);
  const { onProgress } = options;
  return {
    out: (line) => void (stdout += `${line}\n`),
    log,
    err: (text) => void (stderr += text),
    // Shown as it happens instead of kept: a failure's report then holds its summary once.
    progress: (line) => (onProgress ? onProgress(line) : log(line)),
    progressEveryMs: options.progressEveryMs ?? LOG_EVERY_MS,
    stdout: () => stdout,
    stderr: () => stderr,
  };
}

/** The same Output with progress discarded (`2>/dev/null`). */
export function quiet(output: Output): Output {
  return { ...output, log: () => undefined, progress: () => undefined };
}
