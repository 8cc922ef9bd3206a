// The `loom` command as a few files instead of hundreds: esbuild bundles the compiled CLI with the
// packages it imports. Loading ~350 modules one by one (resolving, reading and linking each) cost
// a command ~200 ms of its start-up; see bench/README.md.
import { build, type Plugin } from 'esbuild';
import { join } from 'node:path';

/**
 * Packages left to Node: native addons, packages that find files beside their own code, and
 * Temporal's. The worker's native half loads those from node_modules in any case, and one copy of
 * them, shared by the worker, Loom's activities and the client, keeps one set of failure and
 * payload classes.
 */
const LEFT_TO_NODE = [
  'better-sqlite3',
  '@temporalio/*',
  'tsx',
  'tsx/*',
  'esbuild',
  '@vscode/tree-sitter-wasm',
  // pg's optional native binding, which Loom does not install.
  'pg-native',
  // Ink's optional peer for React DevTools, which Loom does not install (and never imports: see below).
  'react-devtools-core',
];

/**
 * Ink turns on React DevTools when `DEV=true`, a variable people set for other reasons: it then
 * imports `react-devtools-core` and reads its own package.json beside its code, which in a bundle
 * is not there, so the terminal UI would fail to open. The built CLI never connects to DevTools.
 */
const inkWithoutDevTools: Plugin = {
  name: 'ink-without-devtools',
  setup(build) {
    build.onLoad({ filter: /[\\/]ink[\\/]build[\\/]utils\.js$/ }, () => ({
      contents: 'export const isDev = () => false;\n',
      loader: 'js',
    }));
  },
};

/** Bundles `dist/client/main.js` (compiled by tsc) into `dist/cli/`, where bin/loom.js looks for it. */
export async function bundleCli(dist: string): Promise<void> {
  await build({
    entryPoints: [join(dist, 'client', 'main.js')],
    outdir: join(dist, 'cli'),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    // Commands load their code when run (each client/commands/*.command.ts imports it on use): one chunk each.
    splitting: true,
    // A package's ES module build where it ships one: UMD builds hide their imports from esbuild.
    mainFields: ['module', 'main'],
    external: LEFT_TO_NODE,
    // React's production build (and its development build left out of the bundle): nobody sets
    // NODE_ENV to run a CLI, and the development build draws the terminal UI several times slower.
    define: { 'process.env.NODE_ENV': '"production"' },
    plugins: [inkWithoutDevTools],
    // CommonJS packages inside an ES module bundle still call require() for Node's built-ins.
    banner: {
      js: "import { createRequire as loomCreateRequire } from 'node:module';\nconst require = loomCreateRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
}
