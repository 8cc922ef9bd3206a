import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const MAX_OUTPUT_LINES = 2000;
export const MAX_OUTPUT_BYTES = 50 * 1024;
const KEEP_SAVED_MS = 7 * 24 * 3600 * 1000;

export interface Truncated {
  output: string;
  truncated: boolean;
  /** Where the whole output was saved, when it was cut. */
  outputPath?: string;
}

/**
 * Keeps what the model sees under 2000 lines and 50 KiB: whole lines from the start, the rest saved
 * to a file the hint points at (read in parts, searched, or handed to the explore agent).
 */
export async function truncateOutput(
  output: string,
  options: { dir: string; name: string; canDelegate: boolean },
): Promise<Truncated> {
  const lines = output.split('\n');
  if (lines.length <= MAX_OUTPUT_LINES && Buffer.byteLength(output) <= MAX_OUTPUT_BYTES)
    return { output, truncated: false };

  const kept: string[] = [];
  let bytes = 0;
  let cutByBytes = false;
  for (const line of lines) {
    const size = Buffer.byteLength(line) + 1;
    if (kept.length >= MAX_OUTPUT_LINES) break;
    if (bytes + size > MAX_OUTPUT_BYTES) {
      cutByBytes = true;
      break;
    }
    kept.push(line);
    bytes += size;
  }
  const outputPath = join(options.dir, options.name);
  await mkdir(options.dir, { recursive: true });
  await writeFile(outputPath, output);
  void removeOldOutputs(options.dir);

  const left = cutByBytes ? `${Buffer.byteLength(output) - bytes} bytes` : `${lines.length - kept.length} lines`;
  const hint = options.canDelegate
    ? `The output was cut. The full output is saved in ${outputPath}\nUse the task tool to have the explore agent search it with grep and read (with offset/limit). Do not read the whole file yourself: delegating saves context.`
    : `The output was cut. The full output is saved in ${outputPath}\nUse grep to search it, or read with offset and limit to see parts of it.`;
  return { output: `${kept.join('\n')}\n\n... ${left} truncated ...\n\n${hint}`, truncated: true, outputPath };
}

let lastSweep = 0;

/** Saved outputs are kept for a week; the folder is swept at most once an hour per process. */
async function removeOldOutputs(dir: string): Promise<void> {
  if (Date.now() - lastSweep < 3600 * 1000) return;
  lastSweep = Date.now();
  try {
    for (const name of await readdir(dir)) {
      const path = join(dir, name);
      if (Date.now() - (await stat(path)).mtimeMs > KEEP_SAVED_MS) await rm(path, { force: true });
    }
  } catch {
    // Another worker swept it first.
  }
}
