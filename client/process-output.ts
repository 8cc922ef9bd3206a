/**
 * The end of a command's output. Writes to a pipe are asynchronous in Node: what a slow reader
 * (`| jq`, `| tee`) has not taken yet waits in the process, and `process.exit()` drops it. So a
 * command exits only once stdout and stderr have handed everything to the reader; and a reader
 * that stops early (`| head -1`) ends the command quietly, as SIGPIPE ends `cat`.
 */

/** Exits with `code` once everything written to stdout and stderr has left the process. */
export async function exitWhenWritten(code: number): Promise<never> {
  await Promise.all([written(process.stdout), written(process.stderr)]);
  process.exit(code);
}

/** A reader that closed its end (EPIPE) ends the command with `code`, without a stack trace. */
export function endQuietlyWhenReaderCloses(code = 0): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      process.exit(code);
    });
  }
}

/** Settles once every earlier write of `stream` is done (writes complete in order). */
function written(stream: NodeJS.WriteStream): Promise<void> {
  if (stream.destroyed || !stream.writable) return Promise.resolve();
  return new Promise((resolve) => stream.write('', () => resolve()));
}
