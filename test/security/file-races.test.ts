// Round three: the file tools run in the worker, outside the sandbox, while a sandboxed process of
// the same session can change the project at any moment. A link planted between a tool's check of
// a path and its use of it must not take the tool out of the project: `write`, `edit` and `read`
// open what they checked, or refuse with an error naming the path, and nothing outside is created,
// changed or shown.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { edit } from '../../activities/tools/edit.js';
import { openByWalk, openThenRecheck } from '../../activities/tools/files/open-checked.js';
import { read } from '../../activities/tools/read.js';
import { ToolError } from '../../activities/tools/running/tool-handler.js';
import { write } from '../../activities/tools/write.js';
import { createToolContext, type ToolTestContext } from '../../testkit/model/tool-context.js';

let root: string;
let project: string;
let outside: string;
let context: ToolTestContext;
let racer: ChildProcess | undefined;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'loom-file-races-')));
  project = join(root, 'project');
  outside = join(root, 'outside');
  mkdirSync(project);
  mkdirSync(outside);
  context = createToolContext(project);
});
afterEach(async () => {
  racer?.kill('SIGKILL');
  if (racer && racer.exitCode === null && racer.signalCode === null) await once(racer, 'exit');
  racer = undefined;
  await context.close();
  rmSync(root, { recursive: true, force: true });
});

async function failure(run: Promise<unknown>): Promise<string> {
  const error = await run.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ToolError);
  return (error as Error).message;
}

/**
 * The session's store, as the tools use it, except that the first time a tool asks when the
 * session read a file (after it checked the path, before it opens the file) `dir` becomes a link
 * to the folder outside: the moment a racing process would need to hit, hit every time.
 */
function plantOnVersionCheck(): void {
  const store = context.store;
  let planted = false;
  context.store = Object.assign(Object.create(store) as typeof store, {
    fileReadMtime: async (sessionID: string, path: string) => {
      if (!planted) {
        planted = true;
        rmSync(join(project, 'dir'), { recursive: true });
        symlinkSync(outside, join(project, 'dir'));
      }
      return store.fileReadMtime(sessionID, path);
    },
  });
}

describe('a link planted between the check and the write', () => {
  beforeEach(() => {
    mkdirSync(join(project, 'dir'));
    writeFileSync(join(project, 'dir', 'file.txt'), 'mine\n');
    writeFileSync(join(outside, 'file.txt'), 'mine, but outside the project\n');
  });

  it('write refuses, naming the path, and the file outside is neither changed nor shown', async () => {
    await read({ filePath: 'dir/file.txt' }, context);
    plantOnVersionCheck();
    const message = await failure(write({ filePath: 'dir/file.txt', content: 'by the agent\n' }, context));
    expect(message).toContain(join(project, 'dir'));
    expect(message).toContain('link');
    expect(message).not.toContain('outside the project\n');
    expect(readFileSync(join(outside, 'file.txt'), 'utf8')).toBe('mine, but outside the project\n');
  });

  it('edit refuses, naming the path, and the file outside is neither changed nor shown', async () => {
    await read({ filePath: 'dir/file.txt' }, context);
    plantOnVersionCheck();
    const message = await failure(edit({ filePath: 'dir/file.txt', oldString: 'mine', newString: 'ours' }, context));
    expect(message).toContain(join(project, 'dir'));
    expect(message).toContain('link');
    expect(message).not.toContain('outside the project');
    expect(readFileSync(join(outside, 'file.txt'), 'utf8')).toBe('mine, but outside the project\n');
  });
});

describe.each([
  ['the walk from / (Linux)', openByWalk],
  ['the re-check after opening (where /proc/self/fd is missing)', openThenRecheck],
] as const)('opening a checked path: %s', (_name, openPath) => {
  const content = async (real: string) => {
    const handle = await openPath(real, 'read');
    try {
      return await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  };

  it('makes the missing folders and the file, and reads and lists what it made', async () => {
    const file = join(project, 'a', 'b', 'new.txt');
    const handle = await openPath(file, 'write');
    await handle.writeFile('made\n');
    await handle.close();
    expect(await content(file)).toBe('made\n');
    const folder = await openPath(join(project, 'a', 'b'), 'list');
    await folder.close();
  });

  it('refuses a folder or a file that became a link, creating, truncating and reading nothing outside', async () => {
    writeFileSync(join(outside, 'kept.txt'), 'outside\n');
    // Checked as real folders and files of the project; links by the time they are opened.
    symlinkSync(outside, join(project, 'dir'));
    symlinkSync(join(outside, 'kept.txt'), join(project, 'file.txt'));
    for (const real of [
      join(project, 'dir', 'kept.txt'),
      join(project, 'dir', 'new', 'made.txt'),
      join(project, 'file.txt'),
    ]) {
      const message = await failure(openPath(real, 'write'));
      expect(message).toContain(real);
      expect(message).toMatch(/became a link .* nothing was written\.$/);
      expect(await failure(openPath(real, 'read'))).toMatch(/became a link .* nothing was read\.$/);
    }
    expect(readFileSync(join(outside, 'kept.txt'), 'utf8')).toBe('outside\n');
    expect(existsSync(join(outside, 'new'))).toBe(false);
  });

  it('refuses a FIFO at once, where opening it would wait for a writer or a reader', async () => {
    execFileSync('mkfifo', [join(project, 'pipe')]);
    expect(await failure(openPath(join(project, 'pipe'), 'write'))).toContain('is not a regular file');
    expect(await failure(openPath(join(project, 'pipe'), 'read'))).toContain('is not a regular file');
  });
});

/** Starts a Node program racing the tools; resolves once it is running. */
async function race(script: string, ...args: string[]): Promise<void> {
  racer = spawn(process.execPath, ['-e', script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  await once(racer.stdout!, 'data');
}

/** Points `project/dir` at `inside` and at `outside` in turn, as fast as it can, each swap atomic. */
const FLIPPER = `
const { renameSync, symlinkSync } = require('node:fs');
const [dir, inside, outside] = process.argv.slice(1);
process.stdout.write('ready\\n');
for (let i = 0; ; i++) {
  symlinkSync(i % 2 ? outside : inside, dir + '.next');
  renameSync(dir + '.next', dir);
}
`;

/** Plants `dir-N/race` (a link out) the moment a folder `dir-N` appears in the project, as a sandboxed watcher could. */
const WATCHER = `
const { symlinkSync, watch } = require('node:fs');
const { join } = require('node:path');
const [project, target] = process.argv.slice(1);
watch(project, (event, name) => {
  if (!name || !name.startsWith('dir-')) return;
  try { symlinkSync(target, join(project, name, 'race')); } catch {}
});
process.stdout.write('ready\\n');
`;

describe('a second process racing the tools', () => {
  it('a link that keeps changing where it leads never takes read or write out of the project', async () => {
    mkdirSync(join(project, 'inside'));
    writeFileSync(join(project, 'inside', 'file.txt'), 'inside\n');
    writeFileSync(join(outside, 'file.txt'), 'outside secret\n');
    symlinkSync(join(project, 'inside'), join(project, 'dir'));
    await race(FLIPPER, join(project, 'dir'), join(project, 'inside'), outside);
    let reads = 0;
    let writes = 0;
    for (let attempt = 0; attempt < 300; attempt++) {
      const result = await read({ filePath: 'dir/file.txt' }, context).catch((error: Error) => error);
      if (!(result instanceof Error)) {
        reads++;
        expect(result.output).not.toContain('outside secret');
      }
      const wrote = await write({ filePath: `dir/new-${attempt}.txt`, content: 'x\n' }, context).catch(
        (error: unknown) => error,
      );
      if (!(wrote instanceof Error)) writes++;
      expect(existsSync(join(outside, `new-${attempt}.txt`)), `new-${attempt}.txt outside`).toBe(false);
    }
    // Both tools were really used while the link flipped, not refused every time.
    expect(reads).toBeGreaterThan(0);
    expect(writes).toBeGreaterThan(0);
  });

  it('a link planted in a folder the moment write creates it does not make the write land outside', async () => {
    writeFileSync(join(outside, 'target.txt'), 'outside\n');
    await race(WATCHER, project, join(outside, 'target.txt'));
    for (let attempt = 0; attempt < 8; attempt++) {
      const file = join(project, `dir-${attempt}`, 'race');
      const result = await write({ filePath: file, content: `by the agent ${attempt}\n` }, context).catch(
        (error: unknown) => error,
      );
      expect(readFileSync(join(outside, 'target.txt'), 'utf8'), `attempt ${attempt}`).toBe('outside\n');
      if (result instanceof Error) {
        expect(result).toBeInstanceOf(ToolError);
        expect(result.message).toContain(file);
      } else expect(readFileSync(file, 'utf8')).toBe(`by the agent ${attempt}\n`);
    }
  });
});
