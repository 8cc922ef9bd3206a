import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** One import of the project's own code: the module it names, and whether only types come from it. */
export interface ProjectImport {
  target: string;
  onlyTypes: boolean;
}

const IMPORT =
  /^(?:import|export)\s+(type\s+)?([^;]*?)\s*from\s+'(\.[^']+)'|^import\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/gms;

/** The file a relative specifier names (`./a.js` is `./a.ts` in the sources). */
function resolveSpecifier(module: string, specifier: string): string | undefined {
  const base = resolve(dirname(module), specifier);
  for (const candidate of [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), base, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

function namesOnlyTypes(names: string): boolean {
  return (
    names.startsWith('{') &&
    names
      .slice(1, -1)
      .split(',')
      .every((name) => !name.trim() || name.trim().startsWith('type '))
  );
}

/** The project modules a module imports, with absolute paths. */
export function importsOf(module: string): ProjectImport[] {
  const found: ProjectImport[] = [];
  for (const [, typeKeyword, names, from, bare, dynamic] of readFileSync(module, 'utf8').matchAll(IMPORT)) {
    const target = resolveSpecifier(module, from ?? bare ?? dynamic);
    if (target)
      found.push({ target, onlyTypes: Boolean(typeKeyword) || (from !== undefined && namesOnlyTypes(names)) });
  }
  return found;
}

/** Every TypeScript module under the folders, with absolute paths. */
export function modulesUnder(root: string, folders: readonly string[]): string[] {
  const modules: string[] = [];
  const visit = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) modules.push(path);
    }
  };
  for (const folder of folders) visit(join(root, folder));
  return modules;
}

/**
 * The import circles among the modules (types-only imports count: they tie the files' meaning as
 * much as their loading), each as the modules of one strongly connected set, relative to `root`.
 */
export function importCircles(root: string, modules: readonly string[]): string[][] {
  const edges = new Map(modules.map((module) => [module, importsOf(module).map((found) => found.target)]));
  const index = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let counter = 0;
  // Tarjan's algorithm, iterative, so a long chain of imports cannot overflow the stack.
  for (const start of modules) {
    if (index.has(start)) continue;
    const work: { module: string; next: number }[] = [{ module: start, next: 0 }];
    index.set(start, counter);
    lowest.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const targets = edges.get(frame.module) ?? [];
      if (frame.next < targets.length) {
        const target = targets[frame.next++];
        if (!edges.has(target)) continue;
        if (!index.has(target)) {
          index.set(target, counter);
          lowest.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ module: target, next: 0 });
        } else if (onStack.has(target)) {
          lowest.set(frame.module, Math.min(lowest.get(frame.module)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].module;
        lowest.set(parent, Math.min(lowest.get(parent)!, lowest.get(frame.module)!));
      }
      if (lowest.get(frame.module) === index.get(frame.module)) {
        const members: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          members.push(relative(root, member));
        } while (member !== frame.module);
        const selfImport = members.length === 1 && edges.get(frame.module)!.includes(frame.module);
        if (members.length > 1 || selfImport) circles.push(members.sort());
      }
    }
  }
  return circles;
}
