// What one approval of an `external_directory` ask lets a sandboxed bash call write, through
// `loom run` as a person runs it (its own worker, with the test's HOME) and `loom approve`: the ask
// says what it grants, in the store, `loom pending` and the run's own output; a file directly in the
// home folder opens as that file only, a path known only when the line runs opens nothing, and a
// second command of the same line (Python, which no parser reads) writes nothing else in the home
// folder. Folders are made in /var/tmp, outside the sandbox's private /tmp.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionRequestRecord } from '../../core/rules/permission-request.js';
import type { ToolPart } from '../../core/records/part.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { parseJson, runLoom, spawnLoom } from '../../testkit/loom/run-loom.js';
import { waitUntil } from '../../testkit/wait.js';

let env: LoomTestEnv;
let home: string;
let elsewhere: string;
let cliEnv: NodeJS.ProcessEnv;

beforeAll(async () => {
  env = await createLoomTestEnv({ parent: '/var/tmp' });
  home = join(env.project, '..', 'home');
  elsewhere = join(env.project, '..', 'elsewhere');
  mkdirSync(home, { recursive: true });
  mkdirSync(join(elsewhere, 'out'), { recursive: true });
  writeFileSync(join(elsewhere, 'notes.txt'), 'notes\n');
  cliEnv = { ...env.env, HOME: home };
});

afterAll(async () => env?.close());

/** A Python line writing a file in the home folder: no command-line parser sees it. */
const pythonWrites = (name: string) =>
  `python3 -c "import os; open(os.path.join(os.environ['HOME'], '${name}'), 'w').write('x')"`;

/**
 * Runs `loom run` whose model makes one bash call, approving each ask once as it comes; returns the
 * asks, what `loom pending` said of them, the call's output and what the run printed.
 */
async function runApprovingOnce(command: string) {
  env.model.setScript([
    {
      name: 'write',
      when: { lastUser: 'Write', lastRole: 'user' },
      reply: { toolCalls: [{ name: 'bash', args: { command, description: 'Write outside' } }] },
    },
    { name: 'done', when: { lastRole: 'tool' }, reply: { text: 'Written.' } },
  ]);
  const run = spawnLoom(['run', '--json', '-m', 'scripted/test-model', 'Write'], { env: cliEnv, cwd: env.project });
  let stderr = '';
  run.child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const asks: PermissionRequestRecord[] = [];
  const listed: string[] = [];
  for (;;) {
    let pending: PermissionRequestRecord[] = [];
    await waitUntil(async () => {
      pending = await env.store.permissionRequests({ status: 'pending' });
      return pending.length > 0 || run.child.exitCode !== null;
    }, 60_000);
    if (pending.length === 0) break;
    listed.push((await runLoom(['pending'], { env: cliEnv })).stdout);
    for (const request of pending) {
      asks.push(request);
      expect((await runLoom(['approve', request.id], { env: cliEnv })).code).toBe(0);
    }
  }
  const result = await run.result;
  expect(parseJson(result)).toMatchObject({ status: 'completed', text: 'Written.' });
  const [part] = (await env.store.messages(parseJson(result).sessionId))
    .flatMap((message) => message.parts)
    .filter((candidate): candidate is ToolPart => candidate.type === 'tool');
  return { asks, listed: listed.join('\n'), output: (part.state as { output?: string }).output ?? '', stderr };
}

describe('an approved external_directory ask of a sandboxed bash call', () => {
  it('opens a file directly in the home folder, not the folder, and says so', async () => {
    writeFileSync(join(home, 'loom-outside.txt'), '');
    const { asks, listed, output, stderr } = await runApprovingOnce(
      `echo hi > ~/loom-outside.txt; ${pythonWrites('loom-other.txt')}`,
    );
    expect(asks).toHaveLength(1);
    const words = `write access to the file ${home}/loom-outside.txt only (not the folder ${home})`;
    expect(asks[0]).toMatchObject({ permission: 'external_directory', patterns: [`${home}/*`], grants: [words] });
    expect(listed).toContain(`  ${words}\n`);
    expect(stderr).toContain(`  ${words}\n`);
    expect(readFileSync(join(home, 'loom-outside.txt'), 'utf8')).toBe('hi\n');
    expect(existsSync(join(home, 'loom-other.txt'))).toBe(false);
    expect(output).toContain('Read-only file system');
  }, 120_000);

  it('opens nothing for $HOME/…, which only the running shell knows, and says it must run outside', async () => {
    const { asks, listed, output } = await runApprovingOnce(
      `echo hi > $HOME/loom-outside.txt; ${pythonWrites('loom-other.txt')}`,
    );
    expect(asks).toHaveLength(1);
    const words =
      'no write access in the sandbox to $HOME/loom-outside.txt (known only when the line runs): writing it needs the command run outside the sandbox';
    expect(asks[0]).toMatchObject({ permission: 'external_directory', patterns: ['$HOME/*'], grants: [words] });
    expect(listed).toContain(`  ${words}\n`);
    expect(readFileSync(join(home, 'loom-outside.txt'), 'utf8')).toBe('hi\n');
    expect(existsSync(join(home, 'loom-other.txt'))).toBe(false);
    expect(output).toContain('"sandbox": false');
  }, 120_000);

  it('asks for writing and for reading apart, and opens for writing only the folder written', async () => {
    const { asks, listed } = await runApprovingOnce(
      `cp ${elsewhere}/notes.txt ${elsewhere}/out/ && ${pythonWrites('../elsewhere/from-python.txt')}`,
    );
    expect(asks.map((ask) => [ask.patterns, ask.grants])).toEqual([
      [[`${elsewhere}/out/*`], [`write access to ${elsewhere}/out`]],
      [[`${elsewhere}/*`], [`read access to ${elsewhere}`]],
    ]);
    expect(listed).toContain(`  write access to ${elsewhere}/out\n`);
    expect(readFileSync(join(elsewhere, 'out', 'notes.txt'), 'utf8')).toBe('notes\n');
    expect(existsSync(join(elsewhere, 'from-python.txt'))).toBe(false);
  }, 120_000);
});
