import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../worker/bundle.js';
import { importCircles, importsOf, modulesUnder } from '../../testkit/import-graph.js';

/** The layers, lowest first: a module imports from its own folder and the layers below it, never above or beside. */
const LAYERS: Record<string, number> = { core: 0, activities: 1, workflows: 2, worker: 3, 'dev-server': 3, client: 4 };
const EVERY_FOLDER = [...Object.keys(LAYERS), 'testkit', 'test', 'bench', 'chaos', 'eval', 'scripts'];

const fromRoot = (module: string) => relative(PROJECT_ROOT, module);
const folderOf = (module: string) => fromRoot(module).split('/')[0];

/** The project's modules a module loads when it runs (imports of types only are left out). */
function loadedBy(module: string, seen = new Set<string>()): Set<string> {
  if (seen.has(module)) return seen;
  seen.add(module);
  for (const found of importsOf(module)) if (!found.onlyTypes) loadedBy(found.target, seen);
  return seen;
}

describe("the project's imports", () => {
  it('go down the layers: core → activities → workflows → worker and dev-server → client', () => {
    const upward: string[] = [];
    for (const module of modulesUnder(PROJECT_ROOT, Object.keys(LAYERS))) {
      const from = folderOf(module);
      for (const { target } of importsOf(module)) {
        const to = folderOf(target);
        if (to !== from && !(LAYERS[to] < LAYERS[from])) upward.push(`${fromRoot(module)} → ${fromRoot(target)}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('leave bench/ to itself: what the eval, the chaos suite and the tests share is the test kit', () => {
    const intoBench = modulesUnder(PROJECT_ROOT, ['testkit', 'test', 'chaos', 'eval']).flatMap((module) =>
      importsOf(module)
        .filter(({ target }) => folderOf(target) === 'bench')
        .map(({ target }) => `${fromRoot(module)} → ${fromRoot(target)}`),
    );
    expect(intoBench).toEqual([]);
  });

  it('make no circles, types-only imports included', () => {
    expect(importCircles(PROJECT_ROOT, modulesUnder(PROJECT_ROOT, EVERY_FOLDER))).toEqual([]);
  });
});

// Temporal's workflow sandbox evaluates every module a workflow imports again for each workflow
// (each session run, subagent and batch task). Building the zod schemas of the store's records
// there cost each workflow about as much as the rest of a bare child workflow, so the modules that
// define them stay out of the workflows' imports: workflows import types from them, and take what
// they run from zod-free modules (`core/records/tokens.ts`, `core/rules/permission.ts`, `core/tool-call/mcp.ts`).
describe("the workflows' imports", () => {
  const loaded = [...loadedBy(join(PROJECT_ROOT, 'workflows', 'index.ts'))].map(fromRoot);

  it('leave out the modules that build the schemas of records and config', () => {
    expect(loaded).toContain('workflows/session.ts');
    expect(loaded).toContain('core/tools/index.ts');
    const schemaModules = [
      'core/records/part.ts',
      'core/records/message.ts',
      'core/batch/batch.ts',
      'core/records/session.ts',
      'core/config/config.ts',
      'core/config/mcp-config.ts',
      'core/config/permission-config.ts',
    ];
    expect(loaded.filter((module) => schemaModules.includes(module))).toEqual([]);
  });

  it('build tool parameters only when asked for', () => {
    const tools = loaded.filter((module) => module.startsWith('core/tools/') && module !== 'core/tools/index.ts');
    expect(tools.length).toBeGreaterThan(10);
    for (const tool of tools)
      expect(readFileSync(join(PROJECT_ROOT, tool), 'utf8'), tool).not.toMatch(/^ {2}parameters: z/m);
  });
});
