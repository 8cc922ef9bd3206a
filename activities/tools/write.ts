import { stat } from 'node:fs/promises';
import { relative } from 'node:path';
import type { z } from 'zod';
import type { write as writeSpec } from '../../core/tools/write.js';
import { assertReadVersion, rememberVersion } from './files/file-versions.js';
import { readChecked, writeChecked } from './files/open-checked.js';
import { resolveChecked } from './files/project-path.js';
import { ToolError, type ToolHandler } from './running/tool-handler.js';
import { unifiedDiff } from './files/unified-diff.js';

export const write: ToolHandler<z.infer<typeof writeSpec.parameters>> = async (input, context) => {
  const { path, real } = resolveChecked(context, input.filePath);
  const name = relative(context.directory, path);
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) throw new ToolError(`${path} is a directory, not a file.`);
  await assertReadVersion(context, path);
  // What was checked is what is read and written: no link planted since takes the write elsewhere.
  const before = existing ? (await readChecked(real)).toString('utf8') : '';
  await writeChecked(real, input.content);
  await rememberVersion(context, path);
  const change = unifiedDiff(name, before, input.content);
  const lines = lineCount(input.content);
  return {
    title: name,
    output: `${existing ? 'Wrote' : 'Created'} ${name} (${lines} line${lines === 1 ? '' : 's'}).`,
    metadata: { ...change, created: !existing },
  };
};

/** Lines as an editor counts them: a final newline ends the last line, it does not start another. */
function lineCount(text: string): number {
  if (text === '') return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}
