import type { ToolSpec } from '../tool-spec.js';
import { glob } from './glob.js';
import { grep } from './grep.js';
import { list } from './list.js';
import { read } from './read.js';

/** Every tool Loom knows, by name. Adding a tool: its spec here, its handler in `activities/tools/`. */
export const toolSpecs: Record<string, ToolSpec> = Object.fromEntries(
  [read, list, glob, grep].map((spec) => [spec.name, spec as unknown as ToolSpec]),
);

export function findTool(name: string): ToolSpec | undefined {
  return Object.hasOwn(toolSpecs, name) ? toolSpecs[name] : undefined;
}
