import { isAbsolute, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ContentBlock } from '@agentclientprotocol/sdk';
import { RequestError } from '@agentclientprotocol/sdk';

/**
 * An editor's prompt as the text Loom's prompts are: text as it is, an embedded resource's text
 * with the file it came from, a link to a file as an `@path` reference (read into the prompt as
 * `loom run "… @file"` is). Loom's prompts carry no images or audio (`initialize` says so), so
 * those are refused, by index, rather than dropped without a word.
 */
export function promptText(blocks: ContentBlock[], directory: string): string {
  const pieces = blocks.map((block, index) => {
    switch (block.type) {
      case 'text':
        return block.text;
      case 'resource_link':
        return `@${referencePath(block.uri, directory)}`;
      case 'resource': {
        const { resource } = block;
        if (!('text' in resource))
          throw RequestError.invalidParams(
            { index },
            `prompt block ${index} embeds binary data (${resource.uri}); Loom takes text only`,
          );
        return `Contents of ${displayName(resource.uri, directory)}:\n\`\`\`\n${resource.text}\n\`\`\``;
      }
      default:
        throw RequestError.invalidParams({ index }, `prompt block ${index} is ${block.type}; Loom takes text only`);
    }
  });
  const text = pieces.join('\n\n').trim();
  if (!text) throw RequestError.invalidParams(undefined, 'the prompt is empty');
  return text;
}

/** `src/app.ts` for a file of the project, the absolute path for one outside it, the URI for anything else. */
function referencePath(uri: string, directory: string): string {
  const path = filePath(uri);
  if (!path) return uri;
  const inside = relative(directory, path);
  return inside && !inside.startsWith('..') && !isAbsolute(inside) ? inside : path;
}

function displayName(uri: string, directory: string): string {
  return filePath(uri) ? referencePath(uri, directory) : uri;
}

function filePath(uri: string): string | undefined {
  if (uri.startsWith('file://')) return fileURLToPath(uri);
  return isAbsolute(uri) ? uri : undefined;
}
