import { z } from 'zod';
import { fileAccess } from '../tool-call/permissions.js';
import { defineTool } from '../tool-call/spec.js';

export const READ_DEFAULT_LIMIT = 2000;
export const READ_MAX_LINE_LENGTH = 2000;

export const read = defineTool({
  name: 'read',
  description: `Read a file from the project, or list a directory.

- filePath may be absolute or relative to the project directory.
- Returns up to ${READ_DEFAULT_LIMIT} lines by default, each prefixed with its line number (cat -n style). Use offset (the 1-based line to start at) and limit to read parts of long files.
- Lines longer than ${READ_MAX_LINE_LENGTH} characters are cut.
- Binary files are refused. Reading a directory lists its entries.
- Read several files at once by making several calls in one message.`,
  parameters: () =>
    z.object({
      filePath: z.string().describe('The path of the file to read'),
      offset: z.number().int().min(1).optional().describe('The line number to start reading from (1-based)'),
      limit: z.number().int().min(1).optional().describe(`The number of lines to read (default ${READ_DEFAULT_LIMIT})`),
    }),
  effect: 'read-only',
  local: true,
  summarize: (input) => input.filePath,
  permissions: (input, context) => fileAccess('read', input.filePath, context),
});
