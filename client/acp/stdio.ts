import { Readable } from 'node:stream';
import { ndJsonStream, type Stream } from '@agentclientprotocol/sdk';

/**
 * The protocol's stdio. Stdout belongs to the protocol alone: from here on anything else written
 * there (a worker's log, the Temporal dev server's install progress, a library's console.log)
 * goes to stderr, and only the protocol writes to the real stdout. A line of input that is not
 * JSON is said on stderr and skipped (it has no id to answer).
 */
export function protocolStdio(report: (line: string) => void): Stream {
  const toStdout = process.stdout.write.bind(process.stdout);
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
  const output = new WritableStream<Uint8Array>({
    write: (chunk) =>
      new Promise<void>((resolve, reject) => {
        toStdout(chunk, (error) => (error ? reject(error) : resolve()));
      }),
  });
  const input = (Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>).pipeThrough(jsonLines(report));
  return ndJsonStream(output, input);
}

/** Passes on the lines that are JSON; says which are not, on stderr. */
export function jsonLines(report: (line: string) => void): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let pending = '';
  const pass = (line: string, controller: TransformStreamDefaultController<Uint8Array>) => {
    if (!line.trim()) return;
    try {
      JSON.parse(line);
    } catch {
      const shown = line.length > 120 ? `${line.slice(0, 119)}…` : line;
      report(`loom acp: skipped a line of input that is not JSON: ${shown}`);
      return;
    }
    controller.enqueue(encoder.encode(`${line}\n`));
  };
  return new TransformStream({
    transform(chunk, controller) {
      pending += decoder.decode(chunk, { stream: true });
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) pass(line, controller);
    },
    flush(controller) {
      pass(pending + decoder.decode(), controller);
    },
  });
}
