#!/usr/bin/env node
// The `loom` command. It runs the build (`npm run build` makes dist/; an installed package ships it).
// In a checkout without a build, or with sources changed since it was made, it runs the TypeScript
// sources through tsx instead, as `client/loom.js` does.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const built = join(root, 'dist', 'client', 'main.js');
const sources = join(root, 'client', 'main.ts');
const SOURCE_FOLDERS = ['core', 'activities', 'workflows', 'worker', 'client'];

/** The newest change under a folder, in ms. */
function newest(folder) {
  let latest = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

function buildIsCurrent() {
  if (!existsSync(built)) return false;
  if (!existsSync(sources)) return true;
  const builtAt = statSync(join(root, 'dist', 'workflow-bundle.js'), { throwIfNoEntry: false })?.mtimeMs ?? 0;
  return SOURCE_FOLDERS.every((folder) => newest(join(root, folder)) <= builtAt);
}

if (buildIsCurrent()) {
  await import(built);
} else if (existsSync(sources)) {
  await import('../client/loom.js');
} else {
  process.stderr.write(`Loom's build is missing (${built}): run \`npm run build\` in ${root}.\n`);
  process.exit(1);
}
