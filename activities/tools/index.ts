import { glob } from './glob.js';
import { grep } from './grep.js';
import { list } from './list.js';
import { read } from './read.js';
import type { ToolHandler } from './tool-handler.js';

/** Handlers by tool name; each tool's spec is in `core/tools/`. */
export const toolHandlers: Record<string, ToolHandler<never>> = { read, list, glob, grep };
