import { z } from 'zod';
import { searchAccess } from '../tool-call/permissions.js';
import { defineTool } from '../tool-call/spec.js';

export const glob = defineTool({
  name: 'glob',
  description: `Find files by name with a glob pattern such as "**/*.ts" or "src/**/test_*.py".

- Returns matching file paths, most recently modified first.
- path is the directory to search in (default: the project directory).
- Files ignored by .gitignore are left out.
- To find files by their content, use grep.`,
  parameters: () =>
    z.object({
      pattern: z.string().describe('The glob pattern to match file paths against'),
      path: z.string().optional().describe('The directory to search in (default: the project directory)'),
    }),
  effect: 'read-only',
  local: true,
  summarize: (input) => input.pattern,
  permissions: (input, context) => searchAccess('glob', input.pattern, input.path, context),
});
