import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type * as TreeSitter from '@vscode/tree-sitter-wasm';
import type { Node, Parser as TreeSitterParser } from '@vscode/tree-sitter-wasm';

export type SyntaxNode = Node;

/**
 * tree-sitter's bash grammar (the one OpenCode checks commands with), as VS Code ships it: the
 * runtime and the grammar are WebAssembly inside one npm package, so nothing is built or
 * downloaded at install. Loaded once per process; a parse then takes well under a millisecond.
 */
const require = createRequire(import.meta.url);
let loading: Promise<TreeSitterParser> | undefined;

async function load(): Promise<TreeSitterParser> {
  // The package is a UMD bundle: its exports are the object `module.exports` is set to.
  const treeSitter = require('@vscode/tree-sitter-wasm') as typeof TreeSitter;
  await treeSitter.Parser.init();
  const grammar = await readFile(require.resolve('@vscode/tree-sitter-wasm/wasm/tree-sitter-bash.wasm'));
  const parser = new treeSitter.Parser();
  parser.setLanguage(await treeSitter.Language.load(grammar));
  return parser;
}

function parser(): Promise<TreeSitterParser> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/**
 * Parses a shell line and hands its syntax tree to `use`, freeing the tree afterwards (it lives in
 * WebAssembly memory). `undefined` root when the grammar gave up.
 */
export async function withSyntaxTree<T>(line: string, use: (root: SyntaxNode | undefined) => T): Promise<T> {
  const tree = (await parser()).parse(line);
  try {
    return use(tree?.rootNode);
  } finally {
    tree?.delete();
  }
}
