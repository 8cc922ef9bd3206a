import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expandCommand } from '../../activities/session/commands.js';
import { resolveReferences } from '../../activities/session/prompt-references.js';

let root: string;
let project: string;
let home: string;

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'loom-commands-')));
  project = join(root, 'project');
  home = join(root, 'home');
  mkdirSync(join(project, 'src'), { recursive: true });
  mkdirSync(join(project, 'explore'));
  mkdirSync(home);
  writeFileSync(join(project, 'src', 'app.ts'), 'export {};\n');
  writeFileSync(join(project, 'diagram.PNG'), '');
  writeFileSync(join(project, 'reviewer'), 'a file named like an agent\n');
  writeFileSync(join(home, 'notes.md'), '# notes\n');
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

const run = (template: string, args: string, extra: Partial<Parameters<typeof expandCommand>[1]> = {}) =>
  expandCommand('check', { template, ...extra }, args, { directory: project, env: process.env, config: {} });

describe('expandCommand', () => {
  it('substitutes arguments, then runs each !`command` with them and splices in its stdout', async () => {
    const expanded = await run(
      '  Check $1 against $2 (all: $ARGUMENTS)\nSays: !`echo "hello $1"`\nBroken: !`echo oops >&2; exit 3`\n\n',
      'src/app.ts docs notes',
    );
    expect(expanded).toEqual({
      name: 'check',
      prompt:
        'Check src/app.ts against docs notes (all: src/app.ts docs notes)\nSays: hello src/app.ts\n\nBroken: Error executing command: oops',
    });
  });

  it('runs the commands in the project directory, in parallel', async () => {
    const started = Date.now();
    const expanded = await run('Here: !`pwd` !`sleep 1; echo a` !`sleep 1; echo b`', '');
    expect(expanded.prompt).toBe(`Here: ${project}\n a\n b`);
    expect(Date.now() - started).toBeLessThan(1_900);
  });

  it('reports a failure without stderr by its exit code', async () => {
    const { prompt } = await run('!`false`', '');
    expect(prompt).toBe('Error executing command: `false` exited with code 1');
  });

  it('reports a project directory that is gone', async () => {
    const { prompt } = await expandCommand('check', { template: '!`pwd`' }, '', {
      directory: join(root, 'missing'),
      env: process.env,
      config: {},
    });
    expect(prompt).toMatch(/^Error executing command: Could not run `pwd` in .*missing/);
  });

  it('carries the command’s agent, model, subtask and description', async () => {
    const expanded = await run('Review.', 'focus on tests', {
      agent: 'reviewer',
      model: 'openai/gpt-5',
      subtask: true,
      description: 'Review changes',
    });
    expect(expanded).toEqual({
      name: 'check',
      prompt: 'Review.\n\nfocus on tests',
      agent: 'reviewer',
      model: 'openai/gpt-5',
      subtask: true,
      description: 'Review changes',
    });
  });

  it('rejects when cancelled, stopping the commands', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const expanding = expandCommand('check', { template: '!`sleep 20`' }, '', {
      directory: project,
      env: process.env,
      config: {},
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(new Error('stopped by the user')), 200);
    await expect(expanding).rejects.toThrow('stopped by the user');
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('resolveReferences', () => {
  const agents = ['build', 'explore', 'reviewer', 'general'];
  const resolve = (text: string) => resolveReferences(text, { directory: project, home, agents });

  it('resolves files, directories, home paths and agents, dropping the rest', async () => {
    const references = await resolve(
      'Read @src/app.ts and @src, see @diagram.PNG and @~/notes.md, ask @general about @nowhere.txt.',
    );
    expect(references).toEqual([
      { kind: 'file', name: 'src/app.ts', path: join(project, 'src', 'app.ts'), mime: 'text/plain' },
      { kind: 'directory', name: 'src', path: join(project, 'src') },
      { kind: 'file', name: 'diagram.PNG', path: join(project, 'diagram.PNG'), mime: 'image/png' },
      { kind: 'file', name: '~/notes.md', path: join(home, 'notes.md'), mime: 'text/plain' },
      { kind: 'agent', name: 'general' },
    ]);
  });

  it('prefers an existing file or directory to an agent of the same name', async () => {
    expect(await resolve('@reviewer @explore @build')).toEqual([
      { kind: 'file', name: 'reviewer', path: join(project, 'reviewer'), mime: 'text/plain' },
      { kind: 'directory', name: 'explore', path: join(project, 'explore') },
      { kind: 'agent', name: 'build' },
    ]);
  });

  it('ignores email addresses and backticked names', async () => {
    expect(await resolve('mail build@example.com about `@general`')).toEqual([]);
  });
});
