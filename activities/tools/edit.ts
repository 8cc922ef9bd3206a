import { stat } from 'node:fs/promises';
import { relative } from 'node:path';
import type { z } from 'zod';
import type { edit as editSpec } from '../../core/tools/edit.js';
import { rememberVersion, staleRead } from './files/file-versions.js';
import { explainMissing } from './files/closest-paths.js';
import { read } from './read.js';
import { promptVariant } from '../../core/models/prompt-variant.js';
import { readChecked, writeChecked } from './files/open-checked.js';
import { resolveChecked } from './files/project-path.js';
import { replaceText } from './files/replace-text.js';
import { ToolError, type ToolHandler } from './running/tool-handler.js';
import { unifiedDiff } from './files/unified-diff.js';

export const edit: ToolHandler<z.infer<typeof editSpec.parameters>> = async (input, context) => {
  const { path, real } = resolveChecked(context, input.filePath);
  const name = relative(context.directory, path);
  if (input.oldString === input.newString) {
    throw new ToolError('oldString and newString are the same: there is nothing to change.');
  }
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) throw new ToolError(`${path} is a directory, not a file.`);
  const stale = await staleRead(context, path);
  // A small model rarely comes back from a refusal: its edit of a file it has not read goes ahead
  // when oldString matches the file once, exactly or nearly (never with replaceAll).
  const unreadAllowed =
    stale?.unread === true && !input.replaceAll && promptVariant(context.config, context.model) === 'small';
  // A refusal carries the file as it is now, which counts as reading it: the next call can be the edit.
  const withFile = async (why: string) =>
    `${why} The edit was not made. Here is the file as it is now; call edit again with oldString copied from it.\n\n${(await read({ filePath: path }, context)).output}`;
  if (stale && !unreadAllowed) throw new ToolError(await withFile(stale.message));

  let before = '';
  let after: string;
  if (input.oldString === '') {
    if (existing && existing.size > 0) {
      throw new ToolError(
        `${path} already exists and is not empty: an empty oldString only creates new files. Use write to replace it.`,
      );
    }
    after = input.newString;
  } else {
    if (!existing)
      throw new ToolError(await explainMissing(`File not found: ${path}`, context.directory, path, 'file'));
    // What was checked is what is read and written: no link planted since takes the edit elsewhere.
    before = (await readChecked(real)).toString('utf8');
    try {
      after = replaceText(before, input.oldString, input.newString, input.replaceAll ?? false, path);
    } catch (error) {
      if (unreadAllowed && error instanceof ToolError) throw new ToolError(await withFile(error.message));
      throw error;
    }
  }
  await writeChecked(real, after);
  await rememberVersion(context, path);
  const change = unifiedDiff(name, before, after);
  return {
    title: name,
    output: `Edited ${name}: ${change.additions} lines added, ${change.deletions} removed.`,
    metadata: change,
  };
};
