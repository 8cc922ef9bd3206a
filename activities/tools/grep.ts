import { relative } from 'node:path';
import type { z } from 'zod';
import type { grep as grepSpec } from '../../core/tools/grep.js';
import { resolveInProject } from './project-path.js';
import { newestFirst, searchBackend, type ContentMatch } from './search/index.js';
import type { ToolHandler } from './tool-handler.js';

const LIMIT = 100;
const MAX_LINE_LENGTH = 2000;

export const grep: ToolHandler<z.infer<typeof grepSpec.parameters>> = async (input, context) => {
  const root = resolveInProject(context, input.path);
  const backend = await searchBackend(context.env);
  const found = await backend.searchContent(root, {
    pattern: input.pattern,
    include: input.include,
    project: context.directory,
    signal: context.abort,
  });
  const matches = await newestFilesFirst(found);
  const title = input.pattern;
  if (matches.length === 0) return { title, output: 'No files found', metadata: { matches: 0, truncated: false } };
  const lines: string[] = [`Found ${matches.length} matches${matches.length > LIMIT ? ` (showing the first ${LIMIT})` : ''}`];
  let current = '';
  for (const match of matches.slice(0, LIMIT)) {
    if (match.path !== current) {
      current = match.path;
      lines.push('', `${match.path}:`);
    }
    lines.push(`  Line ${match.line}: ${match.text.replace(/\r$/, '').slice(0, MAX_LINE_LENGTH)}`);
  }
  return {
    title,
    output: lines.join('\n'),
    metadata: { matches: matches.length, truncated: matches.length > LIMIT, root: relative(context.directory, root) || '.' },
  };
};

/** Matches grouped by file, files most recently modified first, lines in order within a file. */
async function newestFilesFirst(matches: ContentMatch[]): Promise<ContentMatch[]> {
  const byFile = new Map<string, ContentMatch[]>();
  for (const match of matches) {
    const list = byFile.get(match.path);
    if (list) list.push(match);
    else byFile.set(match.path, [match]);
  }
  const files = await newestFirst([...byFile.keys()]);
  return files.flatMap((file) => byFile.get(file.path)!.sort((a, b) => a.line - b.line));
}
