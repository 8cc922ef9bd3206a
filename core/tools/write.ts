import { z } from 'zod';
import { fileAccess } from '../tool-call/permissions.js';
import { defineTool } from '../tool-call/spec.js';

export const write = defineTool({
  name: 'write',
  description: `Write a file in the project, replacing it if it exists.

- filePath may be absolute or relative to the project directory; missing folders are created.
- To change part of an existing file, prefer edit: it sends only the change.
- An existing file must have been read in this session first, and not changed on disk since; otherwise the write is refused and you should read it again.
- Do not create documentation files (*.md, README) unless asked to.`,
  parameters: () =>
    z.object({
      filePath: z.string().describe('The path of the file to write'),
      content: z.string().describe('The whole new content of the file'),
    }),
  effect: 'mutating',
  summarize: (input) => input.filePath,
  permissions: (input, context) => fileAccess('edit', input.filePath, context),
});
