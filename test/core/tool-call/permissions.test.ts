import { describe, expect, it } from 'vitest';
import { permissionsOf } from '../../../core/tool-call/permissions.js';
import { findTool } from '../../../core/tools/index.js';

const context = { directory: '/work/project' };
const of = (tool: string, input: unknown) => permissionsOf(findTool(tool)!, input, context);

describe('the permissions a tool call needs', () => {
  it('matches read against the absolute path and edit against the project-relative path', () => {
    expect(of('read', { filePath: 'src/a.ts' })).toEqual([
      { permission: 'read', patterns: ['/work/project/src/a.ts'], always: ['*'] },
    ]);
    expect(of('edit', { filePath: '/work/project/src/a.ts', oldString: 'a', newString: 'b' })).toEqual([
      { permission: 'edit', patterns: ['src/a.ts'], always: ['*'] },
    ]);
    expect(of('write', { filePath: 'docs/x.md', content: '' })[0].patterns).toEqual(['docs/x.md']);
  });

  it('adds external_directory for a path outside the project, with the folder as pattern', () => {
    expect(of('read', { filePath: '/etc/hosts' })).toEqual([
      { permission: 'external_directory', patterns: ['/etc/*'], always: ['/etc/*'] },
      { permission: 'read', patterns: ['/etc/hosts'], always: ['*'] },
    ]);
    expect(of('edit', { filePath: '../other/a.ts', oldString: 'a', newString: 'b' })[1].patterns).toEqual([
      '/work/other/a.ts',
    ]);
    expect(of('grep', { pattern: 'TODO', path: '/srv' })[0]).toEqual({
      permission: 'external_directory',
      patterns: ['/srv/*'],
      always: ['/srv/*'],
    });
    expect(of('glob', { pattern: '**/*.ts' })).toEqual([{ permission: 'glob', patterns: ['**/*.ts'], always: ['*'] }]);
  });

  it('counts the project folder itself as inside the project, for read by any name', () => {
    for (const filePath of ['.', '/work/project', '/work/project/', './']) {
      expect(of('read', { filePath }), filePath).toEqual([
        { permission: 'read', patterns: ['/work/project'], always: ['*'] },
      ]);
    }
  });

  it('leaves a bash line whole, for the model activity to parse', () => {
    expect(
      of('bash', { command: ' git add -A && git commit -m "wip; fix" ', workdir: '/tmp', description: 'Commit' }),
    ).toEqual([{ permission: 'bash', patterns: ['git add -A && git commit -m "wip; fix"'], always: [] }]);
  });

  it('gives webfetch the URL and the todo tools their own permission', () => {
    expect(of('webfetch', { url: 'https://example.com/a', format: 'markdown' })).toEqual([
      { permission: 'webfetch', patterns: ['https://example.com/a'], always: ['*'] },
    ]);
    expect(of('todoread', {})).toEqual([{ permission: 'todoread', patterns: ['*'], always: ['*'] }]);
  });
});
