import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, relative } from 'node:path';
import type { z } from 'zod';
import type { edit as editSpec } from '../../core/tools/edit.js';
import { assertReadVersion, rememberVersion } from './file-versions.js';
import { resolveInProject } from './project-path.js';
import { replaceText } from './replace-text.js';
import { ToolError, type ToolHandler } from './tool-handler.js';
import { unifiedDiff } from './unified-diff.js';

export const edit: ToolHandler<z.infer<typeof editSpec.parameters>> = async (input, context) => {
  const path = resolveInProject(context, input.filePath);
  const name = relative(context.directory, path);
  if (input.oldString === input.newString) {
    throw new ToolError('oldString and newString are the same: there is nothing to change.');
  }
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) throw new ToolError(`${path} is a directory, not a file.`);
  await assertReadVersion(context, path);

  let before = '';
  let after: string;
  if (input.oldString === '') {
    if (existing && existing.size > 0) {
      throw new ToolError(`${path} already exists and is not empty: an empty oldString only creates new files. Use write to replace it.`);
    }
    after = input.newString;
    await mkdir(dirname(path), { recursive: true });
  } else {
    if (!existing) throw new ToolError(`File not found: ${path}`);
    before = await readFile(path, 'utf8');
    after = replaceText(before, input.oldString, input.newString, input.replaceAll ?? false, path);
  }
  await writeFile(path, after);
  await rememberVersion(context, path);
  const change = unifiedDiff(name, before, after);
  return {
    title: name,
    output: `Edited ${name}: ${change.additions} lines added, ${change.deletions} removed.`,
    metadata: change,
  };
};
