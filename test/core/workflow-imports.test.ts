// Temporal's workflow sandbox evaluates every module a workflow imports again for each workflow
// (each session run, subagent and batch task). Building the zod schemas of the store's records
// there cost each workflow about as much as the rest of a bare child workflow, so the modules that
// define them stay out of the workflows' imports: workflows import types from them, and take what
// they run from zod-free modules (`core/tokens.ts`, `core/permission.ts`, `core/mcp.ts`).
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../worker/bundle.js';

/** The project's modules a module loads when it runs (imports of types only are left out). */
function loadedBy(module: string, seen = new Set<string>()): Set<string> {
  if (seen.has(module)) return seen;
  seen.add(module);
  for (const [, names, target] of readFileSync(module, 'utf8').matchAll(/^(?:import|export) (?!type )([^;]*?) from '(\.[^']+)'/gms)) {
    const onlyTypes = names.startsWith('{') && names.slice(1, -1).split(',').every((name) => !name.trim() || name.trim().startsWith('type '));
    if (!onlyTypes) loadedBy(resolve(dirname(module), target.replace(/\.js$/, '.ts')), seen);
  }
  return seen;
}

describe("the workflows' imports", () => {
  const loaded = [...loadedBy(join(PROJECT_ROOT, 'workflows', 'index.ts'))].map((module) => relative(PROJECT_ROOT, module));

  it('leave out the modules that build the schemas of records and config', () => {
    expect(loaded).toContain('workflows/session.ts');
    expect(loaded).toContain('core/tools/index.ts');
    const schemaModules = ['core/part.ts', 'core/message.ts', 'core/batch.ts', 'core/session.ts', 'core/config.ts', 'core/mcp-config.ts', 'core/permission-config.ts'];
    expect(loaded.filter((module) => schemaModules.includes(module))).toEqual([]);
  });

  it('build tool parameters only when asked for', () => {
    const tools = loaded.filter((module) => module.startsWith('core/tools/') && module !== 'core/tools/index.ts');
    expect(tools.length).toBeGreaterThan(10);
    for (const tool of tools) expect(readFileSync(join(PROJECT_ROOT, tool), 'utf8'), tool).not.toMatch(/^ {2}parameters: z/m);
  });
});
