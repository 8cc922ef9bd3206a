import type { SyntaxNode } from './parser.js';

/** A word of a command: as written, and its value when the line alone decides it. */
export interface ShellWord {
  raw: string;
  /** Quotes and escapes removed; `undefined` when the word holds an expansion (`$X`, `$(…)`, …). */
  value?: string;
}

const ANSI_ESCAPES: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  e: '\x1b',
  E: '\x1b',
  a: '\x07',
  b: '\b',
  f: '\f',
  v: '\v',
};

/** The word a syntax node stands for. */
export function wordOf(node: SyntaxNode): ShellWord {
  const value = valueOf(node);
  return value === undefined ? { raw: node.text } : { raw: node.text, value };
}

/**
 * What a word is worth before the line runs. Anything the shell computes (parameters, command
 * and arithmetic substitutions, process substitutions) has no value here; neither does a `$` or
 * backtick the grammar left inside a plain word, so nothing dynamic passes for a literal.
 */
function valueOf(node: SyntaxNode): string | undefined {
  switch (node.type) {
    case 'command_name': {
      const [inner] = node.namedChildren;
      return inner ? valueOf(inner) : undefined;
    }
    case 'word':
    case 'number':
      if (/[$`]/.test(node.text)) return undefined;
      return node.text.replace(/\\\n/g, '').replace(/\\(.)/gs, '$1');
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'ansi_c_string':
      return node.text.slice(2, -1).replace(/\\(.)/gs, (_, escaped: string) => ANSI_ESCAPES[escaped] ?? escaped);
    case 'string':
    case 'translated_string': {
      let text = '';
      for (const child of node.namedChildren) {
        if (!child || child.type !== 'string_content' || /[$`]/.test(child.text)) return undefined;
        text += child.text.replace(/\\([$`"\\\n])/g, (_, escaped: string) => (escaped === '\n' ? '' : escaped));
      }
      return text;
    }
    case 'concatenation': {
      let text = '';
      for (const child of node.namedChildren) {
        const part = child ? valueOf(child) : undefined;
        if (part === undefined) return undefined;
        text += part;
      }
      return text;
    }
    default:
      return undefined;
  }
}

/**
 * Whether a word only known when the line runs may be an option: it is one whose value is
 * computed (`-x"$CMD"`), or it starts with an expansion (`$X`, `"$(…)"`, `` `…` ``), which may
 * start with `-` and, unquoted, be several words.
 */
export function mayBeOption(word: ShellWord): boolean {
  return word.value === undefined && /^("?[$`]|-)/.test(word.raw);
}

/**
 * A word that names a path: whether the path is a folder the command works in (`cd x`), whether the
 * command writes there, and whether it writes into the path when that is a folder (`cp a dest`).
 */
export interface PathWord {
  word: ShellWord;
  folder: boolean;
  write: boolean;
  into?: boolean;
}
