import { relative } from 'node:path';
import type { z } from 'zod';
import type { glob as globSpec } from '../../core/tools/glob.js';
import { resolveInProject } from './files/project-path.js';
import { newestFirst, searchBackend } from './search/index.js';
import type { ToolHandler } from './running/tool-handler.js';

const LIMIT = 100;

export const glob: ToolHandler<z.infer<typeof globSpec.parameters>> = async (input, context) => {
  const root = resolveInProject(context, input.path);
  const backend = await searchBackend(context.env, context.config);
  const files = await newestFirst(
    await backend.listFiles(root, { glob: input.pattern, project: context.directory, signal: context.abort }),
  );
  const title = relative(context.directory, root) || '.';
  if (files.length === 0) return { title, output: 'No files found', metadata: { count: 0, truncated: false } };
  const shown = files.slice(0, LIMIT).map((file) => file.path);
  const cut =
    files.length > LIMIT
      ? `\n\n(Showing the ${LIMIT} most recently modified of ${files.length} files. Use a more specific pattern or path.)`
      : '';
  return { title, output: shown.join('\n') + cut, metadata: { count: files.length, truncated: files.length > LIMIT } };
};
