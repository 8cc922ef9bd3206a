import { stat } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import type { z } from 'zod';
import type { list as listSpec } from '../../core/tools/list.js';
import { resolveInProject } from './files/project-path.js';
import { newestFirst, searchBackend } from './search/index.js';
import { ToolError, type ToolHandler } from './running/tool-handler.js';
import { explainMissing } from './files/closest-paths.js';

const LIMIT = 100;

export const list: ToolHandler<z.infer<typeof listSpec.parameters>> = async (input, context) => {
  const root = resolveInProject(context, input.path);
  const info = await stat(root).catch(() => undefined);
  if (!info) throw new ToolError(await explainMissing(`No such folder: ${root}`, context.directory, root, 'folder'));
  if (!info.isDirectory()) throw new ToolError(`${root} is a file, not a folder: read it with the read tool.`);
  const backend = await searchBackend(context.env, context.config);
  const files = await newestFirst(
    await backend.listFiles(root, { ignore: input.ignore, project: context.directory, signal: context.abort }),
  );
  const shown = files
    .slice(0, LIMIT)
    .map((file) => relative(root, file.path))
    .sort();
  const cut =
    files.length > LIMIT ? `\n\n(Showing ${LIMIT} of ${files.length} files. Use a more specific path or glob.)` : '';
  return {
    title: relative(context.directory, root) || '.',
    output: `${root}/\n${renderTree(shown)}${cut}`,
    metadata: { count: files.length, truncated: files.length > LIMIT },
  };
};

/** Paths as an indented tree, folders before their files. */
function renderTree(paths: string[]): string {
  const lines: string[] = [];
  const printed = new Set<string>();
  for (const path of paths) {
    const segments = path.split(sep);
    for (let depth = 0; depth < segments.length - 1; depth++) {
      const folder = segments.slice(0, depth + 1).join(sep);
      if (printed.has(folder)) continue;
      printed.add(folder);
      lines.push(`${'  '.repeat(depth + 1)}${segments[depth]}/`);
    }
    lines.push(`${'  '.repeat(segments.length)}${segments.at(-1)}`);
  }
  return lines.join('\n');
}
