import { z } from 'zod';
import { searchAccess } from '../tool-call/permissions.js';
import { defineTool } from '../tool-call/spec.js';

export const grep = defineTool({
  name: 'grep',
  description: `Search file contents with a regular expression.

- pattern is a regular expression (e.g. "function\\s+\\w+", "TODO|FIXME").
- include narrows the files searched with a glob (e.g. "*.ts", "*.{ts,tsx}").
- path is the directory to search in (default: the project directory).
- Returns the matching lines with their file paths and line numbers, files modified most recently first.
- Files ignored by .gitignore are left out.`,
  parameters: () =>
    z.object({
      pattern: z.string().describe('The regular expression to search for'),
      path: z.string().optional().describe('The directory to search in (default: the project directory)'),
      include: z.string().optional().describe('A glob of the files to search, e.g. "*.js"'),
    }),
  effect: 'read-only',
  local: true,
  summarize: (input) => `${input.pattern}${input.include ? ` in ${input.include}` : ''}`,
  permissions: (input, context) => searchAccess('grep', input.pattern, input.path, context),
});
