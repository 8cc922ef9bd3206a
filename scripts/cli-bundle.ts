// The `loom` command as a few files instead of hundreds: esbuild bundles the compiled CLI with the
// packages it imports. Loading ~350 modules one by one (resolving, reading and linking each) cost
// a command ~200 ms of its start-up; see bench/README.md.
import { build, type Plugin } from 'esbuild';
import { readFile } from 'node:fs/promises';
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

/**
 * zod re-exports its 60-odd locales as `z.locales`, which an ES module bundle keeps whole (~360 KB
 * of error messages every command would parse at start-up). Loom speaks English and never names a
 * locale: only `en`, zod's default, stays.
 */
const zodWithEnglishOnly: Plugin = {
  name: 'zod-with-english-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, () => ({
      contents: "export { default as en } from './en.js';\n",
      loader: 'js',
    }));
  },
};

/**
 * yoga-layout (Ink's layout engine) carries its WebAssembly as a data: URL and loads it with
 * `fetch` when there is one: in Node that loads undici and fetches the URL, ~60 ms of the terminal
 * UI's first screen. Without `fetch` it decodes the same bytes itself.
 */
const FETCH_CHECK = '"function"!=typeof fetch';
const yogaWithoutFetch: Plugin = {
  name: 'yoga-without-fetch',
  setup(build) {
    build.onLoad({ filter: /[\\/]yoga-layout[\\/]dist[\\/]binaries[\\/]yoga-wasm-base64-esm\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes(FETCH_CHECK)) throw new Error(`${args.path}: no \`${FETCH_CHECK}\` to take out any more`);
      return { contents: source.replaceAll(FETCH_CHECK, 'true'), loader: 'js' };
    });
  },
};

/**
 * Ink and its helpers measure text with `string-width`; in the bundle they get Loom's faster one
 * with the same answers (client/tui/render/string-width.ts), which alone imports the original.
 */
function fastStringWidth(dist: string): Plugin {
  const fast = join(dist, 'client', 'tui', 'render', 'string-width.js');
  return {
    name: 'fast-string-width',
    setup(build) {
      build.onResolve({ filter: /^string-width$/ }, (args) => (args.importer === fast ? undefined : { path: fast }));
    },
  };
}

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
    plugins: [inkWithoutDevTools, zodWithEnglishOnly, yogaWithoutFetch, fastStringWidth(dist)],
    // CommonJS packages inside an ES module bundle still call require() for Node's built-ins.
    banner: {
      js: "import { createRequire as loomCreateRequire } from 'node:module';\nconst require = loomCreateRequire(import.meta.url);",
    },
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
  });
}
