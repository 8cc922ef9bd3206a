import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listProjectFiles } from '../../../client/tui/input/project-files.js';

let project: string;

function write(path: string, text = ''): void {
  mkdirSync(dirname(join(project, path)), { recursive: true });
  writeFileSync(join(project, path), text);
}

beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), 'loom-project-files-'));
  write('.gitignore', 'out/\n*.log\n');
  write('README.md');
  write('.env.example');
  write('debug.log');
  write('src/main.ts');
  write('src/util/strings.ts');
  write('src/util/.gitignore', 'generated.ts\n');
  write('src/util/generated.ts');
  write('out/bundle.js');
  write('node_modules/left-pad/index.js');
  write('.git/HEAD');
});

afterEach(() => rmSync(project, { recursive: true, force: true }));

describe('listProjectFiles', () => {
  it('lists what .gitignore files leave, shallower first, folders with a trailing /', async () => {
    expect(await listProjectFiles(project)).toEqual({
      paths: [
        '.env.example',
        '.gitignore',
        'README.md',
        'src/',
        'src/main.ts',
        'src/util/',
        'src/util/.gitignore',
        'src/util/strings.ts',
      ],
      truncated: false,
    });
  });

  it('follows no symlinks', async () => {
    symlinkSync(join(project, 'src'), join(project, 'linked'));
    expect((await listProjectFiles(project)).paths).not.toContain('linked/');
  });

  it('stops at the limit, keeping the shallow paths', async () => {
    expect(await listProjectFiles(project, { limit: 4 })).toEqual({
      paths: ['.env.example', '.gitignore', 'README.md', 'src/'],
      truncated: true,
    });
  });

  it('lists a large tree quickly', async () => {
    for (let folder = 0; folder < 20; folder++)
      for (let file = 0; file < 100; file++) write(`pkg${folder}/lib/file${file}.ts`);
    const started = performance.now();
    const { paths, truncated } = await listProjectFiles(project, { limit: 1500 });
    expect(performance.now() - started).toBeLessThan(5000);
    expect(paths).toHaveLength(1500);
    expect(truncated).toBe(true);
  });
});
