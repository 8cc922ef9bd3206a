import { mkdirSync, mkdtempSync, realpathSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { glob } from '../../activities/tools/glob.js';
import { grep } from '../../activities/tools/grep.js';
import { list } from '../../activities/tools/list.js';
import { read } from '../../activities/tools/read.js';
import { ToolError, type ToolContext } from '../../activities/tools/running/tool-handler.js';
import { createToolContext } from '../../testkit/model/tool-context.js';

let project: string;
let context: ToolContext;
/** A folder beside the project, with a file the tools must not reveal. */
let outside: string;

const at = (path: string) => join(project, path);

function tempProject(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), 'loom-tools-')));
}

function contextFor(directory: string): ToolContext {
  return createToolContext(directory);
}

function write(path: string, content: string | Buffer, mtimeSeconds?: number, root = project): void {
  const file = join(root, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
  if (mtimeSeconds !== undefined) utimesSync(file, mtimeSeconds, mtimeSeconds);
}

const numbered = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `${String(from + i).padStart(6)}\t line ${from + i}`).join('\n');

/** The ToolError message a handler fails with. */
async function toolError(run: Promise<unknown>): Promise<string> {
  const error = await run.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ToolError);
  return (error as ToolError).message;
}

beforeAll(() => {
  project = tempProject();
  context = contextFor(project);
  outside = tempProject();
  write('private.txt', 'needle outside\n', undefined, outside);
  write('README.md', '# Demo\nhello from the readme\n', 1_000);
  write('src/a.ts', 'export const a = 1;\n// TODO: needle in a\n', 3_000);
  write('src/b.ts', 'export const b = 2;\n', 1_000);
  write('src/c.ts', 'export const c = 3; // needle\n', 2_000);
  write('src/helpers.ts', 'export {};\n', 1_000);
  write('src/nested/deep.ts', 'export const deep = true;\n', 1_000);
  write('notes/todo.md', 'needle in the notes\n', 500);
  write('ten.txt', Array.from({ length: 10 }, (_, i) => ` line ${i + 1}`).join('\n') + '\n');
  write('wide.txt', `${'x'.repeat(2_500)}\nshort\n`);
  write('archive.zip', Buffer.from([0x50, 0x4b, 0x03, 0x04]));
  write('program', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01, 0x02]));
  write('node_modules/pkg/index.ts', 'export const needle = 1;\n');
  write('.gitignore', 'secret.txt\nlogs/\n');
  write('secret.txt', 'needle secret\n');
  write('logs/app.log', 'needle log\n');
});

afterAll(() => {
  rmSync(project, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('read', () => {
  it('numbers the lines of a file and says where it ends', async () => {
    const result = await read({ filePath: 'ten.txt' }, context);
    expect(result.title).toBe('ten.txt');
    expect(result.output).toBe(
      `<file path="${at('ten.txt')}">\n${numbered(1, 10)}\n\n(End of file - 10 lines)\n</file>`,
    );
  });

  it('reads a part of a file with offset and limit, and says which offset reads on', async () => {
    const { output } = await read({ filePath: at('ten.txt'), offset: 3, limit: 4 }, context);
    expect(output).toContain(numbered(3, 6));
    expect(output).not.toContain('line 7');
    expect(output).not.toContain('line 2\n');
    expect(output).toContain('(Showing lines 3-6 of 10. Use offset=7 to read more.)');
  });

  it('stops at 50 KB of output and says which offset reads on', async () => {
    write('big.txt', Array.from({ length: 1_000 }, (_, i) => `${i + 1} ${'y'.repeat(95)}`).join('\n'));
    const { output, metadata } = await read({ filePath: 'big.txt' }, context);
    expect(Buffer.byteLength(output)).toBeLessThan(52 * 1024);
    const last = metadata?.to as number;
    expect(last).toBeGreaterThan(400);
    expect(last).toBeLessThan(1_000);
    expect(output).toContain(`(Showing lines 1-${last} of 1000. Use offset=${last + 1} to read more.)`);
    expect((await read({ filePath: 'big.txt', offset: last + 1, limit: 1 }, context)).output).toContain(
      `\t${last + 1} yyy`,
    );
  });

  it('refuses an offset past the end of the file', async () => {
    expect(await toolError(read({ filePath: 'ten.txt', offset: 11 }, context))).toBe(
      `Offset 11 is past the end of ${at('ten.txt')}, which has 10 lines.`,
    );
  });

  it('cuts lines longer than 2000 characters, saying so', async () => {
    const { output } = await read({ filePath: 'wide.txt' }, context);
    expect(output).toContain(`     1\t${'x'.repeat(2_000)}... (line truncated to 2000 chars)\n     2\tshort`);
    expect(output).not.toContain('x'.repeat(2_001));
  });

  it('lists a directory, folders with a slash', async () => {
    const { output } = await read({ filePath: 'src' }, context);
    expect(output).toBe(`${at('src')} is a directory with 5 entries:\na.ts\nb.ts\nc.ts\nhelpers.ts\nnested/`);
  });

  it('refuses binary files, by extension and by content', async () => {
    expect(await toolError(read({ filePath: 'archive.zip' }, context))).toBe(
      `Cannot read binary file: ${at('archive.zip')}`,
    );
    expect(await toolError(read({ filePath: 'program' }, context))).toBe(`Cannot read binary file: ${at('program')}`);
  });

  it('suggests similar names for a missing file', async () => {
    const message = await toolError(read({ filePath: 'readme.txt' }, context));
    expect(message).toBe(`File not found: ${at('readme.txt')}\n\nDid you mean one of these?\n${at('README.md')}`);
    expect(await toolError(read({ filePath: 'src/helper.js' }, context))).toContain(at('src/helpers.ts'));
  });

  it('finds the file by its name when the model invented its folder', async () => {
    // Small models write `path/to/deep.ts` or `proj/deep.ts` for a file that is elsewhere in the project.
    for (const invented of ['path/to/deep.ts', 'proj/deep.ts', 'src/deep.ts']) {
      expect(await toolError(read({ filePath: invented }, context))).toBe(
        `File not found: ${at(invented)}\n\nDid you mean one of these?\n${at('src/nested/deep.ts')}`,
      );
    }
  });

  it('shows what the nearest folder holds when nothing looks similar', async () => {
    const message = await toolError(read({ filePath: 'nowhere/zzzz.go' }, context));
    expect(message).toMatch(
      new RegExp(`^File not found: ${at('nowhere/zzzz.go')}\n\n${project} holds: .*README[.]md.*src/`),
    );
    expect(message).not.toContain('node_modules');
    expect(await toolError(read({ filePath: 'src/nested/zzzz.go' }, context))).toBe(
      `File not found: ${at('src/nested/zzzz.go')}\n\n${at('src/nested')} holds: deep.ts`,
    );
  });

  it('refuses paths outside the project, absolute or relative', async () => {
    const absolute = await toolError(read({ filePath: '/etc/passwd' }, context));
    expect(absolute).toContain(`/etc/passwd is outside the project directory ${project}`);
    const relative = await toolError(read({ filePath: '../x' }, context));
    expect(relative).toContain(`${join(project, '..', 'x')} is outside the project directory ${project}`);
  });

  it('refuses a sibling folder whose name starts like the project', async () => {
    expect(await toolError(read({ filePath: `${project}-other/secret` }, context))).toContain(
      'is outside the project directory',
    );
  });
});

describe('list', () => {
  it('shows the project as a tree', async () => {
    const { title, output } = await list({}, context);
    expect(title).toBe('.');
    expect(output.startsWith(`${project}/\n`)).toBe(true);
    expect(output).toContain('\n  src/\n    a.ts\n    b.ts\n    c.ts\n    helpers.ts\n    nested/\n      deep.ts\n');
    expect(output).toContain('\n  README.md\n');
  });

  it('leaves out node_modules and files ignored by .gitignore', async () => {
    const { output } = await list({ path: 'src' }, context);
    expect(output).not.toContain('node_modules');
    const whole = (await list({}, context)).output;
    expect(whole).not.toContain('node_modules');
    expect(whole).not.toContain('secret.txt');
    expect(whole).not.toContain('logs/');
    expect(whole).not.toContain('app.log');
  });

  it('lists a sub-folder relative to itself', async () => {
    const { title, output } = await list({ path: 'src/nested' }, context);
    expect(title).toBe(join('src', 'nested'));
    expect(output).toBe(`${at('src/nested')}/\n  deep.ts`);
  });

  it('fails for a folder that does not exist, suggesting folders of that name', async () => {
    expect(await toolError(list({ path: 'proj/nested' }, context))).toBe(
      `No such folder: ${at('proj/nested')}\n\nDid you mean one of these?\n${at('src/nested')}`,
    );
    expect(await toolError(list({ path: 'zzzz' }, context))).toContain(
      `No such folder: ${at('zzzz')}\n\n${project} holds: `,
    );
    expect(await toolError(list({ path: 'README.md' }, context))).toBe(
      `${at('README.md')} is a file, not a folder: read it with the read tool.`,
    );
  });

  it('leaves out extra ignore patterns', async () => {
    const { output } = await list({ path: 'src', ignore: ['**/nested/**'] }, context);
    expect(output).not.toContain('deep.ts');
    expect(output).toContain('a.ts');
  });
});

describe('glob', () => {
  it('returns matching files, most recently modified first', async () => {
    const { output } = await glob({ pattern: 'src/*.ts' }, context);
    expect(output.split('\n')).toEqual([at('src/a.ts'), at('src/c.ts'), at('src/b.ts'), at('src/helpers.ts')]);
  });

  it('searches under a path', async () => {
    const { title, output } = await glob({ pattern: '**/*.ts', path: 'src/nested' }, context);
    expect(title).toBe(join('src', 'nested'));
    expect(output).toBe(at('src/nested/deep.ts'));
  });

  it('leaves out node_modules and .gitignore entries', async () => {
    const { output } = await glob({ pattern: '**/*' }, context);
    expect(output).not.toContain('node_modules');
    expect(output).not.toContain('secret.txt');
    expect(output).not.toContain('app.log');
  });

  it('shows the 100 most recently modified files, saying how many there were', async () => {
    const many = tempProject();
    try {
      for (let i = 0; i < 105; i++) write(`f${String(i).padStart(3, '0')}.txt`, `${i}\n`, 10_000 + i, many);
      const { output, metadata } = await glob({ pattern: '*.txt' }, contextFor(many));
      const [paths, note] = output.split('\n\n');
      const shown = paths.split('\n');
      expect(shown).toHaveLength(100);
      expect(shown[0]).toBe(join(many, 'f104.txt'));
      expect(shown.at(-1)).toBe(join(many, 'f005.txt'));
      expect(note).toBe('(Showing the 100 most recently modified of 105 files. Use a more specific pattern or path.)');
      expect(metadata).toEqual({ count: 105, truncated: true });
    } finally {
      rmSync(many, { recursive: true, force: true });
    }
  });

  it('says so when nothing matches', async () => {
    expect((await glob({ pattern: '**/*.rs' }, context)).output).toBe('No files found');
  });

  it('refuses a pattern that reaches outside the project, before looking there', async () => {
    const reached = {
      [`../${basename(outside)}/*`]: outside,
      [join(outside, '*')]: outside,
      '../**/private.txt': dirname(project),
    };
    for (const [pattern, folder] of Object.entries(reached)) {
      const message = await toolError(glob({ pattern }, context));
      expect(message).toContain(`The pattern "${pattern}" reaches ${folder}, outside the project directory ${project}`);
    }
  });

  it('refuses a path outside the project', async () => {
    expect(await toolError(glob({ pattern: '*', path: outside }, context))).toContain(
      'is outside the project directory',
    );
  });
});

describe('grep', () => {
  it('finds matching lines with their file and line number', async () => {
    const { output } = await grep({ pattern: 'needle', path: 'src' }, context);
    expect(output).toBe(
      [
        'Found 2 matches',
        '',
        `${at('src/a.ts')}:`,
        '  Line 2: // TODO: needle in a',
        '',
        `${at('src/c.ts')}:`,
        '  Line 1: export const c = 3; // needle',
      ].join('\n'),
    );
  });

  it('searches only the files matching include', async () => {
    const { output } = await grep({ pattern: 'needle', include: '*.md' }, context);
    expect(output).toContain(`${at('notes/todo.md')}:\n  Line 1: needle in the notes`);
    expect(output).not.toContain('.ts');
    expect(output.startsWith('Found 1 matches')).toBe(true);
  });

  it('takes regular expressions', async () => {
    const { output } = await grep({ pattern: 'const [bc] =', include: '*.ts' }, context);
    expect(output).toContain('Found 2 matches');
    expect(output).toContain(at('src/b.ts'));
    expect(output).toContain(at('src/c.ts'));
  });

  it('reports an invalid regular expression, quoting it', async () => {
    expect(await toolError(grep({ pattern: 'foo(' }, context))).toMatch(/^Invalid regular expression "foo\(": /);
  });

  it('skips files ignored by .gitignore and node_modules', async () => {
    const { output } = await grep({ pattern: 'needle' }, context);
    expect(output).not.toContain('secret');
    expect(output).not.toContain('app.log');
    expect(output).not.toContain('node_modules');
    expect(output).toContain(at('notes/todo.md'));
  });

  it('says so when nothing matches', async () => {
    expect((await grep({ pattern: 'no such text anywhere' }, context)).output).toBe('No files found');
  });

  it('refuses a path outside the project', async () => {
    expect(await toolError(grep({ pattern: 'x', path: '..' }, context))).toContain('is outside the project directory');
  });

  it('refuses an include that reaches outside the project, without showing what is there', async () => {
    const message = await toolError(grep({ pattern: 'needle', include: `../${basename(outside)}/*` }, context));
    expect(message).toContain('outside the project directory');
    expect(message).not.toContain('needle outside');
  });
});
