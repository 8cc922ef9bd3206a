import { z } from 'zod';
import { defineTool } from '../tool-call/spec.js';

export const WEBFETCH_DEFAULT_TIMEOUT_SECONDS = 30;
export const WEBFETCH_MAX_TIMEOUT_SECONDS = 120;
export const WEBFETCH_MAX_BYTES = 5 * 1024 * 1024;

export const webfetch = defineTool({
  name: 'webfetch',
  description: `Download a web page or other text resource over http(s) and return what it says.

- Only reads: it sends a GET request and never submits forms or changes anything on the server.
- format picks how an HTML page comes back: markdown (the default, and usually the best choice: headings, lists, links and code blocks kept, scripts and styles dropped), text (plain words, no markup), or html (the page source as served). Plain text, JSON and markdown responses come back unchanged whatever the format.
- Good for reading documentation, API references, changelogs and READMEs the project depends on. It is not a search engine: give it the address of the page you want.
- Pages over ${WEBFETCH_MAX_BYTES / 1024 / 1024} MB are refused, and long output is cut (the full text is saved to a file you can read in parts). Images and other binary content are not supported.
- timeout is in seconds (default ${WEBFETCH_DEFAULT_TIMEOUT_SECONDS}, at most ${WEBFETCH_MAX_TIMEOUT_SECONDS}). Redirects are followed.`,
  parameters: () =>
    z.object({
      url: z
        .url({
          protocol: /^https?$/,
          error: 'url must be a full http:// or https:// address; file:, ftp: and other schemes are not supported',
        })
        .describe('The address to fetch, starting with http:// or https://'),
      format: z
        .enum(['text', 'markdown', 'html'])
        .default('markdown')
        .describe('How to return an HTML page: markdown (default), text, or html'),
      timeout: z
        .number()
        .positive()
        .max(WEBFETCH_MAX_TIMEOUT_SECONDS)
        .optional()
        .describe(
          `Seconds to wait for the response (default ${WEBFETCH_DEFAULT_TIMEOUT_SECONDS}, max ${WEBFETCH_MAX_TIMEOUT_SECONDS})`,
        ),
    }),
  effect: 'read-only',
  summarize: (input) => input.url,
  permissions: (input) => [{ permission: 'webfetch', patterns: [input.url], always: ['*'] }],
});
