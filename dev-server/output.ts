import { SCRIPT_NAME } from './config.js';

/** Where a command writes: results on `out` (stdout), progress and errors on `log` (stderr). */
export interface Output {
  out(line: string): void;
  /** One line of progress, prefixed with the script's name. */
  log(line: string): void;
  /** Text written to stderr as it is (the usage text after a usage error). */
  err(text: string): void;
}

export const processOutput: Output = {
  out: (line) => void process.stdout.write(`${line}\n`),
  log: (line) => void process.stderr.write(`${SCRIPT_NAME}: ${line}\n`),
  err: (text) => void process.stderr.write(text),
};

/** An Output that keeps what is written, for callers in this process. */
export function captureOutput(): Output & { stdout: () => string; stderr: () => string } {
  let stdout = '';
  let stderr = '';
  return {
    out: (line) => void (stdout += `${line}\n`),
    log: (line) => void (stderr += `${SCRIPT_NAME}: ${line}\n`),
    err: (text) => void (stderr += text),
    stdout: () => stdout,
    stderr: () => stderr,
  };
}

/** The same Output with progress discarded (`2>/dev/null`). */
export function quiet(output: Output): Output {
  return { ...output, log: () => undefined };
}
