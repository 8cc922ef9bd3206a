import { z } from 'zod';
import { fileAccess } from '../tool-call/permissions.js';
import { defineTool } from '../tool-call/spec.js';

export const edit = defineTool({
  name: 'edit',
  description: `Replace text in a file: oldString becomes newString.

- Read the file first in this session; an edit of a file you have not read, or that changed on disk since you read it, is refused.
- oldString must match the file exactly, including indentation and whitespace (the line numbers that read shows are not part of the file).
- oldString must be unique in the file: include enough surrounding lines, or set replaceAll to change every occurrence (for renames).
- An empty oldString writes newString as the whole content of a new file.
- Make several edits to a file one after another, not at the same time.`,
  parameters: () =>
    z.object({
      filePath: z.string().describe('The path of the file to change'),
      oldString: z.string().describe('The text to replace'),
      newString: z.string().describe('The text to put in its place (must differ from oldString)'),
      replaceAll: z.boolean().optional().describe('Replace every occurrence of oldString (default false)'),
    }),
  effect: 'mutating',
  summarize: (input) => input.filePath,
  permissions: (input, context) => fileAccess('edit', input.filePath, context),
});
