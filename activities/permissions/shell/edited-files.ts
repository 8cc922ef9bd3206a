import { FILE_EDITORS, type FileEditor } from '../../../core/rules/shell-commands.js';
import { mayBeOption, type PathWord, type ShellWord } from './words.js';

interface Option {
  name: string;
  value?: ShellWord;
}

/**
 * The files a command that rewrites files writes (`sed -i … f`, `perl -pi -e … f`, `sort -o f`,
 * `patch f`), and the folder it works in (`patch -d dir`). A word only known when the line runs
 * may be the option that turns in-place editing on, so then its files count as written.
 */
export function editedFiles(words: ShellWord[]): PathWord[] {
  const editor = FILE_EDITORS[words[0]?.value ?? ''];
  if (!editor) return [];
  const { options, operands, hidden } = readArguments(editor, words.slice(1));
  const found: PathWord[] = [];
  let inPlace = editor.writes === 'always';
  for (const { name, value } of options) {
    if (turnsOnInPlace(editor, name, value)) {
      inPlace = true;
      // GNU sed and perl put a backup whose suffix holds a `/` in that folder, `*` standing for the file's name.
      if (value?.value?.includes('/'))
        found.push({ word: { raw: value.raw, value: value.value.replaceAll('*', 'x') }, folder: false, write: true });
    }
    if (value && editor.output?.includes(name)) found.push({ word: value, folder: false, write: true });
    if (value && editor.directory?.includes(name)) found.push({ word: value, folder: true, write: true });
  }
  if (hidden && editor.writes !== 'never') inPlace = true;
  const programGiven = !editor.program || options.some((option) => editor.program!.includes(option.name));
  // A hidden option may give the program too (`-e$S`), making a literal first operand a file.
  const firstIsFile = programGiven || (hidden && operands[0]?.value !== undefined);
  const files = (firstIsFile ? operands : operands.slice(1)).filter(
    (word) => !(editor.notFile?.test(word.value ?? '') ?? false),
  );
  if (inPlace) found.push(...files.map((word) => ({ word, folder: false, write: true })));
  return found;
}

/** `sed -i`, `awk -i inplace`; a value only known when the line runs may be the one that does. */
function turnsOnInPlace(editor: FileEditor, name: string, value: ShellWord | undefined): boolean {
  if (typeof editor.writes !== 'object' || !editor.writes.options.includes(name)) return false;
  return (
    !editor.writes.value ||
    (value !== undefined && (value.value === undefined || editor.writes.value.test(value.value)))
  );
}

/**
 * The options (as written: `-i`, `--in-place`) with their values, the operands, and whether a word may hide an option.
 */
function readArguments(
  editor: FileEditor,
  args: ShellWord[],
): { options: Option[]; operands: ShellWord[]; hidden: boolean } {
  const options: Option[] = [];
  const operands: ShellWord[] = [];
  let hidden = false;
  let ended = false;
  for (let index = 0; index < args.length; index++) {
    const word = args[index];
    const text = word.value;
    if (text === undefined && !ended && word.raw.startsWith('-')) {
      // `-i"$S"`: an option whose value is only known as the line runs.
      hidden = true;
      continue;
    }
    if (text === undefined || ended || !text.startsWith('-') || text === '-') {
      if (text === undefined && !ended && mayBeOption(word)) hidden = true;
      if (!(editor.plusOptions && !ended && text?.startsWith('+'))) operands.push(word);
      continue;
    }
    if (text === '--') ended = true;
    else if (text.startsWith('--')) {
      const equals = text.indexOf('=');
      const name = equals < 0 ? text : text.slice(0, equals);
      const value =
        equals >= 0 ? literal(text.slice(equals + 1)) : editor.long?.includes(name) ? args[++index] : undefined;
      options.push({ name, value });
    } else {
      for (let at = 1; at < text.length; at++) {
        const name = `-${text[at]}`;
        const rest = text.slice(at + 1);
        if (editor.valued.includes(text[at])) {
          options.push({ name, value: rest ? literal(rest) : args[++index] });
          break;
        }
        const attached = editor.attached?.[text[at]];
        const value = attached ? (attached.exec(rest)?.[0] ?? '') : '';
        options.push({ name, ...(attached ? { value: literal(value) } : {}) });
        at += value.length;
      }
    }
  }
  return { options, operands, hidden };
}

function literal(text: string): ShellWord {
  return { raw: text, value: text };
}
