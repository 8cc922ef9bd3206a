import { stat, type FileHandle } from 'node:fs/promises';
import { basename, extname, relative } from 'node:path';
import type { z } from 'zod';
import { READ_DEFAULT_LIMIT, READ_MAX_LINE_LENGTH, type read as readSpec } from '../../core/tools/read.js';
import { parseModelId } from '../../core/models/model-id.js';
import { modelInfo } from '../../core/models/model-info.js';
import { explainMissing } from './files/closest-paths.js';
import { rememberVersion } from './files/file-versions.js';
import { listChecked, openChecked, readChecked } from './files/open-checked.js';
import { resolveChecked } from './files/project-path.js';
import { ToolError, type ToolContext, type ToolHandler, type ToolOutput } from './running/tool-handler.js';

const MAX_BYTES = 50 * 1024;
const MAX_ATTACHMENT_BYTES = 10 * 1024 * 1024;
/** Files the model can be shown as attachments rather than text. */
export const ATTACHMENT_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.pdf': 'application/pdf',
};
const BINARY_EXTENSIONS = new Set(
  '.zip .tar .gz .tgz .bz2 .xz .7z .rar .jar .war .class .exe .dll .so .dylib .o .a .bin .dat .wasm .pyc .pyo .db .sqlite .png .jpg .jpeg .gif .bmp .ico .webp .pdf .mp3 .mp4 .mov .avi .woff .woff2 .ttf .otf'.split(
    ' ',
  ),
);

export const read: ToolHandler<z.infer<typeof readSpec.parameters>> = async (input, context) => {
  const { path, real } = resolveChecked(context, input.filePath);
  const title = relative(context.directory, path) || '.';
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new ToolError(await explainMissing(`File not found: ${path}`, context.directory, path, 'file'));
  // What was checked is what is read (`openChecked`): no link planted since shows a file elsewhere.
  if (info.isDirectory()) {
    const entries = await listChecked(real);
    const names = entries.map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name)).sort();
    return {
      title,
      output: `${path} is a directory with ${names.length} entries:\n${names.join('\n')}`,
      metadata: { directory: true },
    };
  }
  const mime = ATTACHMENT_TYPES[extname(path).toLowerCase()];
  if (mime) return attachment(path, real, title, mime, info.size, context);
  const text = await readText(path, real);
  await rememberVersion(context, path);
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const offset = input.offset ?? 1;
  const limit = input.limit ?? READ_DEFAULT_LIMIT;
  if (offset > Math.max(lines.length, 1)) {
    throw new ToolError(`Offset ${offset} is past the end of ${path}, which has ${lines.length} lines.`);
  }
  const numbered: string[] = [];
  let bytes = 0;
  let last = offset - 1;
  for (let index = offset - 1; index < Math.min(lines.length, offset - 1 + limit); index++) {
    let line = lines[index];
    if (line.length > READ_MAX_LINE_LENGTH)
      line = `${line.slice(0, READ_MAX_LINE_LENGTH)}... (line truncated to ${READ_MAX_LINE_LENGTH} chars)`;
    const entry = `${String(index + 1).padStart(6)}\t${line}`;
    bytes += Buffer.byteLength(entry) + 1;
    if (bytes > MAX_BYTES) break;
    numbered.push(entry);
    last = index + 1;
  }
  const footer =
    last < lines.length
      ? `(Showing lines ${offset}-${last} of ${lines.length}. Use offset=${last + 1} to read more.)`
      : `(End of file - ${lines.length} lines)`;
  return {
    title,
    output: `<file path="${path}">\n${numbered.join('\n')}\n\n${footer}\n</file>`,
    metadata: { lines: lines.length, from: offset, to: last },
  };
};

/** An image or PDF, handed to the model as a file when it accepts files. */
async function attachment(
  path: string,
  real: string,
  title: string,
  mime: string,
  size: number,
  context: ToolContext,
): Promise<ToolOutput> {
  // As configured, else as the catalogue says.
  if (!modelInfo(context.config, context.model).attachment) {
    const { providerID, modelID } = parseModelId(context.model);
    throw new ToolError(
      `Cannot show ${path} (${mime}): the model ${context.model} is not configured to accept images or PDFs. ` +
        `If it does, set provider.${providerID}.models.${modelID}.attachment to true in loom.json.`,
    );
  }
  if (size > MAX_ATTACHMENT_BYTES)
    throw new ToolError(`${path} is too large to show (${size} bytes; the limit is ${MAX_ATTACHMENT_BYTES}).`);
  const data = await readChecked(real);
  return {
    title,
    output: `${mime.startsWith('image/') ? 'Image' : 'PDF'} ${path} (${mime}, ${Math.ceil(size / 1024)} KiB) is attached.`,
    metadata: { mime, bytes: size },
    attachments: [{ mime, url: `data:${mime};base64,${data.toString('base64')}`, filename: basename(path) }],
  };
}

/** The file's text, read from one handle; a binary file is refused. */
async function readText(path: string, real: string): Promise<string> {
  const binary = new ToolError(`Cannot read binary file: ${path}`);
  if (BINARY_EXTENSIONS.has(extname(path).toLowerCase())) throw binary;
  const handle = await openChecked(real, 'read');
  try {
    if (await looksBinary(handle)) throw binary;
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

async function looksBinary(handle: FileHandle): Promise<boolean> {
  const sample = Buffer.alloc(4096);
  // At position 0: the handle's own position stays at the start, for reading the whole file.
  const { bytesRead } = await handle.read(sample, 0, sample.length, 0);
  if (bytesRead === 0) return false;
  let odd = 0;
  for (let i = 0; i < bytesRead; i++) {
    if (sample[i] === 0) return true;
    if (sample[i] < 9 || (sample[i] > 13 && sample[i] < 32)) odd++;
  }
  return odd / bytesRead > 0.3;
}
