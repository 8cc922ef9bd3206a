import { relative, resolve } from 'node:path';
import { evaluate } from '../../core/rules/permission.js';
import type { z } from 'zod';
import type { grep as grepSpec } from '../../core/tools/grep.js';
import { resolveInProject } from './files/project-path.js';
import { newestFirst, searchBackend, type ContentMatch } from './search/index.js';
import { realPathOf } from '../permissions/real-path.js';
import type { ToolContext, ToolHandler } from './running/tool-handler.js';

const LIMIT = 100;
const MAX_LINE_LENGTH = 2000;

export const grep: ToolHandler<z.infer<typeof grepSpec.parameters>> = async (input, context) => {
  const root = resolveInProject(context, input.path);
  const backend = await searchBackend(context.env, context.config);
  const found = await backend.searchContent(root, {
    pattern: input.pattern,
    include: input.include,
    project: context.directory,
    signal: context.abort,
  });
  const { shown, withheld } = readable(found, context);
  const matches = await newestFilesFirst(shown);
  const title = input.pattern;
  const note = withheld.length
    ? `\n\nLeft out the lines of ${withheld.length} file(s) that the read rules protect (${withheld
        .slice(0, 5)
        .map((path) => relative(context.directory, path) || path)
        .join(', ')}): use the read tool on such a file, and the user will be asked.`
    : '';
  if (matches.length === 0)
    return {
      title,
      output: `No files found${note}`,
      metadata: { matches: 0, truncated: false, withheld: withheld.length },
    };
  const lines: string[] = [
    `Found ${matches.length} matches${matches.length > LIMIT ? ` (showing the first ${LIMIT})` : ''}`,
  ];
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
    output: lines.join('\n') + note,
    metadata: {
      matches: matches.length,
      truncated: matches.length > LIMIT,
      root: relative(context.directory, root) || '.',
      withheld: withheld.length,
    },
  };
};

/**
 * The matches in files the read rules allow. A search must not show what reading the file would
 * have asked for (`.env`): those files' lines are withheld, named, and left to the read tool.
 */
function readable(
  matches: ContentMatch[],
  context: Pick<ToolContext, 'readRules' | 'directory'>,
): { shown: ContentMatch[]; withheld: string[] } {
  if (!context.readRules) return { shown: matches, withheld: [] };
  const verdicts = new Map<string, boolean>();
  const allowed = (path: string) => {
    let verdict = verdicts.get(path);
    if (verdict === undefined) {
      const absolute = resolve(context.directory, path);
      verdict = [absolute, realPathOf(absolute)].every(
        (candidate) => evaluate('read', candidate, context.readRules!).action === 'allow',
      );
      verdicts.set(path, verdict);
    }
    return verdict;
  };
  const shown = matches.filter((match) => allowed(match.path));
  return { shown, withheld: [...verdicts].filter(([, ok]) => !ok).map(([path]) => resolve(context.directory, path)) };
}

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
