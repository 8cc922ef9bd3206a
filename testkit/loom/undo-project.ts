import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from './loom-env.js';
import { runLoom } from './run-loom.js';
import { agentDoes } from '../model/scripted-agent.js';

// What undo-fork.test.ts and undo-turns.test.ts share: an env whose agent does what the prompt says, and folders of their own.

/** The scripted agent of `scripted-agent.ts` and a worker in this process. */
export async function createUndoEnv(): Promise<LoomTestEnv> {
  const env = await createLoomTestEnv({ rules: [agentDoes], config: { auto_title: false } });
  await env.worker();
  return env;
}

/** Helpers over the file's env (read when called, so they can be made before `beforeAll` sets it). */
export function undoHelpers(envOf: () => LoomTestEnv) {
  /** A folder of its own for a test, with files; a git repository with them committed when `git`. */
  function project(name: string, files: Record<string, string>, git = false): string {
    const root = join(envOf().project, '..', name);
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), content);
    }
    if (git) {
      const run = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'pipe' });
      run('init', '--quiet');
      run('add', '.');
      run('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'start');
    }
    return root;
  }

  /** One turn of a session (a new one unless `sessionId`) in `directory`; resolves once it finished. */
  async function turn(directory: string, text: string, sessionId?: string): Promise<string> {
    const run = await envOf().start(text, { directory, ...(sessionId ? { sessionId } : {}) });
    expect(await run.result()).toMatchObject({ status: 'completed' });
    return run.sessionId;
  }

  const loom = (args: string[], cwd = envOf().project) =>
    runLoom(args, { env: { ...envOf().env, NO_COLOR: '1' }, cwd });
  const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);
  const userMessages = async (sessionId: string) =>
    (await envOf().store.messages(sessionId)).filter((m) => m.info.role === 'user').map((m) => m.info.id);
  return { project, turn, loom, read, userMessages };
}
