import { assignmentOf, assignmentRuns } from './environment.js';
import { gitRuns } from './git.js';
import type { SyntaxNode } from './parser.js';
import { findCommands, unwrap, type HiddenRuns } from './wrappers.js';
import { wordOf, type ShellWord } from './words.js';

/** One command the line would run, as the rules see it. */
export interface ShellCommand {
  /** What `bash` rules match: the command as written (its redirections included), or the words a wrapper runs. */
  text: string;
  /** The command's name and arguments, leading `VAR=value` assignments left out. */
  words: ShellWord[];
}

/** A redirection to or from a file (`> f`, `2>> log`, `< in`, `&> out`, `<> f`). */
export interface ShellRedirect {
  operator: string;
  target: ShellWord;
}

/** Everything the permission check needs from a line, or why the line cannot be checked. */
export interface ShellAnalysis {
  commands: ShellCommand[];
  redirects: ShellRedirect[];
  /** Why parts of the line cannot be known before it runs; the line then asks as a whole. */
  unsupported: string[];
  /** Scripts given to `bash -c` and the like, checked as lines of their own. */
  scripts: string[];
  /** The grammar could not make sense of the line: nothing above can be trusted. */
  syntaxError?: boolean;
}

/** Builtins the grammar gives their own node; checked as commands, by their text. */
const BUILTIN_NODES = new Set(['declaration_command', 'unset_command', 'test_command']);

/**
 * Walks a parsed line and collects every command that would run, at any depth. A line that is not
 * valid shell asks as a whole, but the commands the grammar still made out are checked too, so a
 * rule that denies one of them still denies the line.
 */
export function analyse(root: SyntaxNode): ShellAnalysis {
  const analysis: ShellAnalysis = { commands: [], redirects: [], unsupported: [], scripts: [] };
  if (root.hasError) analysis.unsupported.push(`the line is not valid shell syntax near \`${firstError(root)}\``);
  visit(root, analysis);
  return root.hasError ? { ...analysis, syntaxError: true } : analysis;
}

function visit(node: SyntaxNode, analysis: ShellAnalysis): void {
  if (node.type === 'command') command(node, analysis);
  else if (BUILTIN_NODES.has(node.type)) builtin(node, analysis);
  else if (node.type === 'file_redirect') redirect(node, analysis);
  else if (node.type === 'variable_assignment') assignment(node, analysis);
  for (const child of node.namedChildren) if (child) visit(child, analysis);
}

/** `export X=1`, `unset X`, `[ -f x ]`: checked by their text, named by their first word (`export *`). */
function builtin(node: SyntaxNode, analysis: ShellAnalysis): void {
  const name = node.children[0]?.text ?? '';
  analysis.commands.push({ text: node.text, words: name ? [{ raw: name, value: name }] : [] });
}

/** `GIT_PAGER=… git log`, `export GIT_SSH_COMMAND=…`: a variable whose value git runs. */
function assignment(node: SyntaxNode, analysis: ShellAnalysis): void {
  const name = node.childForFieldName('name')?.text;
  const value = node.childForFieldName('value');
  if (name) collect(assignmentRuns(name, value ? wordOf(value) : { raw: '', value: '' }), analysis);
}

function command(node: SyntaxNode, analysis: ShellAnalysis): void {
  const words: ShellWord[] = [];
  let assignments = false;
  for (const child of node.namedChildren) {
    if (!child) continue;
    if (child.type === 'variable_assignment' && words.length === 0) assignments = true;
    else if (child.type === 'command_name' || (words.length > 0 && !child.type.endsWith('_redirect')))
      words.push(wordOf(child));
  }
  // The text as written, with the redirections that follow the command (`echo hi > f`).
  const parent = node.parent;
  const text =
    parent?.type === 'redirected_statement' && parent.childForFieldName('body')?.equals(node) ? parent.text : node.text;
  analysis.commands.push({ text, words });
  if (words.length === 0) return;
  if (!known(words, analysis)) return;
  // `FOO=1 rm x` runs `rm x`: a rule on `rm` must see it.
  if (assignments) analysis.commands.push({ text: words.map((word) => word.raw).join(' '), words });
  unwrapAll(words, analysis);
}

/** `sudo env FOO=1 timeout 5 rm x`: each command a wrapper runs is checked too, down to the last. */
function unwrapAll(words: ShellWord[], analysis: ShellAnalysis, depth = 0): void {
  for (; depth < 16; depth++) {
    collect({ commands: findCommands(words), scripts: [], unsupported: [] }, analysis, depth);
    collect(gitRuns(words), analysis, depth);
    const found = unwrap(words);
    if (found.kind === 'none') return;
    if (found.kind === 'unsupported') {
      analysis.unsupported.push(found.reason);
      return;
    }
    if (found.kind === 'script') {
      analysis.scripts.push(found.script);
      return;
    }
    for (const word of found.assignments ?? []) {
      const assigned = assignmentOf(word);
      if (assigned) collect(assignmentRuns(assigned.name, assigned.value), analysis, depth);
    }
    words = found.words;
    if (!known(words, analysis)) return;
    analysis.commands.push({ text: words.map((word) => word.raw).join(' '), words });
  }
  analysis.unsupported.push('wrappers are nested too deep to follow');
}

/**
 * Checks what a command runs besides itself: its commands as commands of the line, its scripts as lines of their own.
 */
function collect(runs: HiddenRuns, analysis: ShellAnalysis, depth = 0): void {
  analysis.scripts.push(...runs.scripts);
  analysis.unsupported.push(...runs.unsupported);
  for (const run of runs.commands) {
    if (!known(run, analysis)) continue;
    analysis.commands.push({ text: run.map((word) => word.raw).join(' '), words: run });
    unwrapAll(run, analysis, depth + 1);
  }
}

/** Whether the command's name is known before the line runs; if not, says so. */
function known(words: ShellWord[], analysis: ShellAnalysis): boolean {
  if (words[0].value !== undefined) return true;
  analysis.unsupported.push(`the command name \`${words[0].raw}\` is only known when the line runs`);
  return false;
}

/** File redirections only; `2>&1` and `>&-` move descriptors, heredocs and here-strings feed text. */
function redirect(node: SyntaxNode, analysis: ShellAnalysis): void {
  const operator = node.children.find((child) => child && !child.isNamed)?.text ?? '';
  const destination = node.childForFieldName('destination');
  if (!destination) return;
  if ((operator === '>&' || operator === '<&') && /^(\d+|-)$/.test(destination.text)) return;
  analysis.redirects.push({ operator, target: wordOf(destination) });
}

/** The text where the grammar first gave up, shortened. */
function firstError(root: SyntaxNode): string {
  const stack: SyntaxNode[] = [root];
  while (stack.length) {
    const node = stack.shift()!;
    if (node.type === 'ERROR' || node.isMissing) return (node.text || node.type).slice(0, 40);
    for (const child of node.children) if (child) stack.push(child);
  }
  return root.text.slice(0, 40);
}
