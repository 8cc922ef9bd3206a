// Which code a Loom command runs: the build (`npm run build` makes dist/; an installed package ships
// it) or, in a checkout without a build or with sources changed since it was made, the TypeScript
// sources through tsx (resolved from Loom's own node_modules, whatever the current directory).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SOURCE_FOLDERS = ['core', 'activities', 'workflows', 'worker', 'client', 'dev-server'];

/** The newest change under a folder, in ms. */
function newest(folder) {
  let latest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/** When `npm run build` last finished, in ms (0: never): it writes dist/workflow-bundle.js last. */
export function builtAt() {
  return statSync(join(root, 'dist', 'workflow-bundle.js'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
}

/** The newest change to the sources the build compiles, in ms. */
export function sourcesChangedAt() {
  return Math.max(...SOURCE_FOLDERS.map((folder) => newest(join(root, folder))));
}

function buildIsCurrent(built, sources) {
  if (!existsSync(built)) return false;
  if (!existsSync(sources)) return true;
  return sourcesChangedAt() <= builtAt();
}

/**
 * Runs `<module>.ts` (a path from the package root, without extension) from the build or the
 * sources. `builtAs`: where the build keeps it, when not at dist/<module>.js (the CLI's bundle).
 */
export async function runEntry(module, builtAs = module) {
  const built = join(root, 'dist', `${builtAs}.js`);
  const sources = join(root, `${module}.ts`);
  if (buildIsCurrent(built, sources)) {
    await import(pathToFileURL(built).href);
  } else if (existsSync(sources)) {
    const { register } = await import('tsx/esm/api');
    // Loom's own tsconfig whatever the current directory: it says how the terminal UI's JSX compiles.
    register({ tsconfig: join(root, 'tsconfig.json') });
    await import(pathToFileURL(sources).href);
  } else {
    process.stderr.write(`Loom's build is missing (${built}): run \`npm run build\` in ${root}.\n`);
    process.exit(1);
  }
}
