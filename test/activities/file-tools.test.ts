import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { edit } from '../../activities/tools/edit.js';
import { read } from '../../activities/tools/read.js';
import { todoread, todowrite } from '../../activities/tools/todo.js';
import { ToolError } from '../../activities/tools/running/tool-handler.js';
import { truncateOutput, MAX_OUTPUT_BYTES } from '../../activities/tools/running/truncate.js';
import { write } from '../../activities/tools/write.js';
import { createToolContext, type ToolTestContext } from '../../testkit/model/tool-context.js';

let project: string;
let context: ToolTestContext;
const contexts: ToolTestContext[] = [];

beforeEach(() => {
  project = realpathSync(mkdtempSync(join(tmpdir(), 'loom-file-tools-')));
  context = createToolContext(project);
  contexts.push(context);
});
afterAll(async () => {
  for (const c of contexts) await c.close();
});

const at = (name: string) => join(project, name);

async function failure(run: Promise<unknown>): Promise<string> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolError);
  return (error as Error).message;
}

describe('write', () => {
  it('creates a new file with its folders, without a prior read, and returns a diff', async () => {
    const result = await write({ filePath: 'src/new.ts', content: 'export const x = 1;\n' }, context);
    expect(readFileSync(at('src/new.ts'), 'utf8')).toBe('export const x = 1;\n');
    expect(result.output).toBe('Created src/new.ts (1 line).');
    expect(result.metadata).toMatchObject({ created: true, additions: 1, deletions: 0 });
    expect(result.metadata!.diff).toContain('+export const x = 1;');
  });

  it('counts the lines written as an editor does: a final newline starts no line', async () => {
    const counted = async (filePath: string, content: string) => (await write({ filePath, content }, context)).output;
    expect(await counted('two.txt', 'one\ntwo\n')).toBe('Created two.txt (2 lines).');
    expect(await counted('unended.txt', 'one\ntwo')).toBe('Created unended.txt (2 lines).');
    expect(await counted('empty.txt', '')).toBe('Created empty.txt (0 lines).');
  });

  it('refuses to overwrite a file the session has not read', async () => {
    writeFileSync(at('a.txt'), 'old\n');
    expect(await failure(write({ filePath: 'a.txt', content: 'new\n' }, context))).toContain(
      `You must read ${at('a.txt')} before changing it`,
    );
    expect(readFileSync(at('a.txt'), 'utf8')).toBe('old\n');
  });

  it('overwrites a file read before, and the session may write it again', async () => {
    writeFileSync(at('a.txt'), 'old\n');
    await read({ filePath: 'a.txt' }, context);
    const first = await write({ filePath: 'a.txt', content: 'new\n' }, context);
    expect(first.metadata).toMatchObject({ created: false, additions: 1, deletions: 1 });
    await write({ filePath: 'a.txt', content: 'newer\n' }, context);
    expect(readFileSync(at('a.txt'), 'utf8')).toBe('newer\n');
  });

  it('refuses a file that changed on disk after it was read', async () => {
    writeFileSync(at('a.txt'), 'old\n');
    await read({ filePath: 'a.txt' }, context);
    writeFileSync(at('a.txt'), 'changed by someone else\n');
    utimesSync(at('a.txt'), new Date(), new Date(Date.now() + 5000));
    expect(await failure(write({ filePath: 'a.txt', content: 'mine\n' }, context))).toMatch(
      /has changed on disk since you last read it[\s\S]*Read it with the read tool first/,
    );
  });

  it('refuses paths outside the project', async () => {
    expect(await failure(write({ filePath: '../escape.txt', content: 'x' }, context))).toContain('external_directory');
  });
});

describe('edit', () => {
  beforeEach(async () => {
    writeFileSync(at('app.ts'), 'function add(a, b) {\n  return a - b;\n}\nconst twice = 2;\nconst again = 2;\n');
    await read({ filePath: 'app.ts' }, context);
  });

  it('replaces a unique string and returns a unified diff', async () => {
    const result = await edit({ filePath: 'app.ts', oldString: 'return a - b;', newString: 'return a + b;' }, context);
    expect(readFileSync(at('app.ts'), 'utf8')).toContain('return a + b;');
    expect(result.output).toBe('Edited app.ts: 1 lines added, 1 removed.');
    expect(result.metadata!.diff).toContain('-  return a - b;\n+  return a + b;');
  });

  it('fails clearly when oldString is missing', async () => {
    expect(await failure(edit({ filePath: 'app.ts', oldString: 'return a * b;', newString: 'x' }, context))).toContain(
      `oldString was not found in ${at('app.ts')}`,
    );
  });

  it('fails clearly when oldString is ambiguous, and replaceAll changes every occurrence', async () => {
    expect(await failure(edit({ filePath: 'app.ts', oldString: '= 2;', newString: '= 3;' }, context))).toContain(
      'appears 2 times',
    );
    await edit({ filePath: 'app.ts', oldString: '= 2;', newString: '= 3;', replaceAll: true }, context);
    expect(readFileSync(at('app.ts'), 'utf8')).toContain('const twice = 3;\nconst again = 3;');
  });

  it('matches a block whose indentation the model got wrong', async () => {
    await edit(
      {
        filePath: 'app.ts',
        oldString: 'function add(a, b) {\nreturn a - b;\n}',
        newString: 'const add = (a, b) => a + b;',
      },
      context,
    );
    expect(readFileSync(at('app.ts'), 'utf8')).toMatch(/^const add = \(a, b\) => a \+ b;\nconst twice/);
  });

  it('matches lines copied with the line numbers read showed', async () => {
    await edit(
      {
        filePath: 'app.ts',
        oldString: '     1\tfunction add(a, b) {\n     2\t  return a - b;',
        newString: '     1\tfunction add(a, b) {\n     2\t  return a + b;',
      },
      context,
    );
    expect(readFileSync(at('app.ts'), 'utf8')).toMatch(/^function add\(a, b\) \{\n {2}return a \+ b;\n\}/);
    // Small models write them with a space, too.
    await edit({ filePath: 'app.ts', oldString: ' 4 const twice = 2;', newString: 'const twice = 3;' }, context);
    expect(readFileSync(at('app.ts'), 'utf8')).toContain('\nconst twice = 3;\nconst again = 2;');
  });

  it('refuses a no-op, an unread file, a missing file, and creates a new file from an empty oldString', async () => {
    expect(await failure(edit({ filePath: 'app.ts', oldString: 'x', newString: 'x' }, context))).toContain(
      'nothing to change',
    );
    writeFileSync(at('other.ts'), 'a\n');
    expect(await failure(edit({ filePath: 'other.ts', oldString: 'a', newString: 'b' }, context))).toContain(
      'You must read',
    );
    expect(readFileSync(at('other.ts'), 'utf8')).toBe('a\n');
    expect(await failure(edit({ filePath: 'missing.ts', oldString: 'a', newString: 'b' }, context))).toContain(
      'File not found',
    );
    await edit({ filePath: 'fresh.ts', oldString: '', newString: 'hello\n' }, context);
    expect(readFileSync(at('fresh.ts'), 'utf8')).toBe('hello\n');
  });

  it('refuses an unread or changed file with its content, so the next call can be the edit', async () => {
    writeFileSync(at('unread.ts'), 'let port = 80;\n');
    const refusal = await failure(
      edit({ filePath: 'unread.ts', oldString: 'port = 80', newString: 'port = 8080' }, context),
    );
    expect(refusal).toContain(`You must read ${at('unread.ts')} before changing it. The edit was not made.`);
    expect(refusal).toContain('     1\tlet port = 80;');
    await edit({ filePath: 'unread.ts', oldString: 'port = 80', newString: 'port = 8080' }, context);
    expect(readFileSync(at('unread.ts'), 'utf8')).toBe('let port = 8080;\n');

    writeFileSync(at('unread.ts'), 'let port = 9090;\n');
    utimesSync(at('unread.ts'), new Date(), new Date(Date.now() + 5000));
    const changed = await failure(
      edit({ filePath: 'unread.ts', oldString: 'port = 8080', newString: 'port = 1' }, context),
    );
    expect(changed).toMatch(/has changed on disk since you last read it[\s\S]* {5}1\tlet port = 9090;/);
    expect(readFileSync(at('unread.ts'), 'utf8')).toBe('let port = 9090;\n');
  });

  it('lets a small model edit a file it has not read when oldString matches once, and shows the file when not', async () => {
    const small = { ...context, model: 'local/qwen2.5-coder-1.5b-instruct' };
    writeFileSync(at('calc.py'), 'def add(a, b):\n    return a - b\n\ndef sub(a, b):\n    return a - b\n');
    const ambiguous = await failure(
      edit({ filePath: 'calc.py', oldString: 'return a - b', newString: 'return a + b' }, small),
    );
    expect(ambiguous).toMatch(/The edit was not made\. Here is the file as it is now[\s\S]* {5}2\t {4}return a - b/);
    writeFileSync(at('other.py'), 'def add(a, b):\n    return a - b\n');
    // Never replaceAll unread: that would change what it has not seen.
    expect(
      await failure(edit({ filePath: 'other.py', oldString: 'a - b', newString: 'a + b', replaceAll: true }, small)),
    ).toContain('You must read');
    await edit({ filePath: 'other.py', oldString: 'return a - b', newString: 'return a + b' }, small);
    expect(readFileSync(at('other.py'), 'utf8')).toBe('def add(a, b):\n    return a + b\n');
  });

  it('lets the session edit the same file twice in a row', async () => {
    await edit({ filePath: 'app.ts', oldString: 'a - b', newString: 'a + b' }, context);
    await edit({ filePath: 'app.ts', oldString: 'const twice', newString: 'const two' }, context);
    expect(readFileSync(at('app.ts'), 'utf8')).toContain('const two = 2;');
  });
});

describe('read of images and PDFs', () => {
  const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

  it('attaches an image for a model that accepts files', async () => {
    writeFileSync(at('logo.png'), png);
    const openai = createToolContext(project, { model: 'openai/gpt-4o' });
    contexts.push(openai);
    const result = await read({ filePath: 'logo.png' }, openai);
    expect(result.output).toContain('is attached');
    expect(result.attachments).toEqual([
      { mime: 'image/png', filename: 'logo.png', url: `data:image/png;base64,${png.toString('base64')}` },
    ]);
  });

  it('explains how to enable files for a model not configured for them', async () => {
    writeFileSync(at('doc.pdf'), '%PDF-1.4\n');
    expect(await failure(read({ filePath: 'doc.pdf' }, context))).toContain(
      'set provider.scripted.models.test-model.attachment to true',
    );
    const configured = createToolContext(project, {
      config: { provider: { scripted: { models: { 'test-model': { attachment: true } } } } },
    });
    contexts.push(configured);
    expect((await read({ filePath: 'doc.pdf' }, configured)).attachments?.[0].mime).toBe('application/pdf');
  });
});

describe('todo list', () => {
  it('keeps the list with the session', async () => {
    const written = await todowrite(
      {
        todos: [
          { content: 'Write the test', status: 'completed', priority: 'high' },
          { content: 'Fix the bug', status: 'in_progress', priority: 'high' },
          { content: 'Update docs', status: 'pending', priority: 'low' },
        ],
      },
      context,
    );
    expect(written.title).toBe('2 open of 3');
    const again = createToolContext(project, { store: context.store, sessionId: context.sessionId });
    const listed = await todoread({}, again);
    expect(JSON.parse(listed.output).map((t: { id: string; content: string }) => `${t.id}:${t.content}`)).toEqual([
      '1:Write the test',
      '2:Fix the bug',
      '3:Update docs',
    ]);
    const other = await todoread({}, createToolContext(project, { store: context.store, sessionId: 'ses_other' }));
    expect(JSON.parse(other.output)).toEqual([]);
  });
});

describe('truncation', () => {
  it('keeps short output as it is', async () => {
    expect(await truncateOutput('a\nb', { dir: at('out'), name: 'x', canDelegate: false })).toEqual({
      output: 'a\nb',
      truncated: false,
    });
  });

  it('cuts at 2000 lines, saves the whole output, and says how to read it', async () => {
    const output = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join('\n');
    const cut = await truncateOutput(output, { dir: at('out'), name: 'prt_1', canDelegate: false });
    expect(cut.truncated).toBe(true);
    expect(readFileSync(cut.outputPath!, 'utf8')).toBe(output);
    expect(cut.output.split('\n').slice(0, 2000).at(-1)).toBe('line 1999');
    expect(cut.output).toContain('... 3000 lines truncated ...');
    expect(cut.output).toContain(`The full output is saved in ${cut.outputPath}`);
    expect(cut.output).toContain('Use grep to search it, or read with offset and limit');
  });

  it('cuts at 50 KiB and points a delegating agent at the explore agent', async () => {
    const output = Array.from({ length: 100 }, () => 'x'.repeat(1000)).join('\n');
    const cut = await truncateOutput(output, { dir: at('out'), name: 'prt_2', canDelegate: true });
    expect(Buffer.byteLength(cut.output.split('\n\n...')[0])).toBeLessThanOrEqual(MAX_OUTPUT_BYTES);
    expect(cut.output).toMatch(/\.\.\. \d+ bytes truncated \.\.\./);
    expect(cut.output).toContain('explore agent');
    expect(existsSync(cut.outputPath!)).toBe(true);
  });
});

afterAll(() => {
  for (const c of contexts) rmSync(c.directory, { recursive: true, force: true });
});
