import { mcpToolSpec, type McpToolInfo } from '../tool-call/mcp.js';
import type { ToolSpec } from '../tool-call/spec.js';
import { bash } from './bash.js';
import { batch } from './batch.js';
import { edit } from './edit.js';
import { glob } from './glob.js';
import { grep } from './grep.js';
import { list } from './list.js';
import { read } from './read.js';
import { skill } from './skill.js';
import { task } from './task.js';
import { taskStatus } from './task-status.js';
import { todoread, todowrite } from './todo.js';
import { webfetch } from './webfetch.js';
import { write } from './write.js';

/** Every tool Loom knows, by name. Adding a tool: its spec here, its handler in `activities/tools/`. */
export const toolSpecs: Record<string, ToolSpec> = Object.fromEntries(
  [read, write, edit, list, glob, grep, bash, webfetch, todowrite, todoread, skill, task, taskStatus, batch].map(
    (spec) => [spec.name, spec as unknown as ToolSpec],
  ),
);

export function findTool(name: string): ToolSpec | undefined {
  return Object.hasOwn(toolSpecs, name) ? toolSpecs[name] : undefined;
}

/** Finds Loom's tools and the MCP tools a run offers. */
export function toolFinder(mcpTools: readonly McpToolInfo[] = []): (name: string) => ToolSpec | undefined {
  if (mcpTools.length === 0) return findTool;
  const byName = new Map(mcpTools.map((info) => [info.name, info]));
  return (name) => {
    const info = byName.get(name);
    return info ? mcpToolSpec(info) : findTool(name);
  };
}
