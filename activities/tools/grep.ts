import { readFile, stat } from 'node:fs/promises';
import { relative } from 'node:path';
import type { z } from 'zod';
import type { grep as grepSpec } from '../../core/tools/grep.js';
import { findFiles } from './project-files.js';
import { resolveInProject } from './project-path.js';
import { ToolError, type ToolHandler } from './tool-handler.js';

const LIMIT = 100;
const MAX_FILE_BYTES = 2 * 1024 * 1024;
const MAX_LINE_LENGTH = 2000;

export const grep: ToolHandler<z.infer<typeof grepSpec.parameters>> = async (input, context) => {
  const root = resolveInProject(context, input.path);
  let regex: RegExp;
  try {
    regex = new RegExp(input.pattern);
  } catch (error) {
    throw new ToolError(`Invalid regular expression "${input.pattern}": ${(error as Error).message}`);
  }
  const pattern = input.include ? (input.include.includes('/') ? input.include : `**/${input.include}`) : '**/*';
  const files = await findFiles(context.directory, root, pattern, { signal: context.abort });
  const matches: { path: string; line: number; text: string }[] = [];
  for (const file of files) {
    context.abort.throwIfAborted();
    if ((await stat(file.path)).size > MAX_FILE_BYTES) continue;
    const content = await readFile(file.path, 'utf8');
    if (content.includes('\u0000')) continue;
    content.split('\n').forEach((text, index) => {
      if (regex.test(text)) matches.push({ path: file.path, line: index + 1, text: text.slice(0, MAX_LINE_LENGTH) });
    });
  }
  const title = input.pattern;
  if (matches.length === 0) return { title, output: 'No files found', metadata: { matches: 0, truncated: false } };
  const lines: string[] = [`Found ${matches.length} matches${matches.length > LIMIT ? ` (showing the first ${LIMIT})` : ''}`];
  let current = '';
  for (const match of matches.slice(0, LIMIT)) {
    if (match.path !== current) {
      current = match.path;
      lines.push('', `${match.path}:`);
    }
    lines.push(`  Line ${match.line}: ${match.text}`);
  }
  return {
    title,
    output: lines.join('\n'),
    metadata: { matches: matches.length, truncated: matches.length > LIMIT, root: relative(context.directory, root) || '.' },
  };
};
