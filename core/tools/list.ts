import { z } from 'zod';
import { resolvePath } from '../text/path.js';
import { searchAccess } from '../tool-call/permissions.js';
import { defineTool } from '../tool-call/spec.js';

export const list = defineTool({
  name: 'list',
  description: `List the files and folders under a directory as a tree.

- path defaults to the project directory; it may be absolute or relative to it.
- Files ignored by .gitignore and common build folders (node_modules, .git, dist, …) are left out; pass extra glob patterns in ignore.
- Prefer glob and grep when you know what you are looking for.`,
  parameters: () =>
    z.object({
      path: z.string().optional().describe('The directory to list (default: the project directory)'),
      ignore: z.array(z.string()).optional().describe('Glob patterns to leave out'),
    }),
  effect: 'read-only',
  local: true,
  summarize: (input) => input.path ?? '.',
  permissions: (input, context) =>
    searchAccess('list', resolvePath(context.directory, input.path ?? '.'), input.path, context),
});
