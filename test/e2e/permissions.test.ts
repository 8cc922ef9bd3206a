import type { ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../worker/bundle.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { parseJson, runLoom } from '../../testkit/loom/run-loom.js';
import { waitFor } from '../../testkit/wait.js';
import { startWorkerProcess, stopProcess } from '../../testkit/loom/worker-process.js';

let env: LoomTestEnv;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  env = await createLoomTestEnv({
    files: { 'deploy.sh': '#!/bin/sh\necho deployed >> deploy.log\necho ok\n' },
    config: { permission: { bash: { '*': 'ask' } } },
  });
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => stopProcess(worker, 'SIGKILL')));
  await env?.close();
});

describe('durable approval from the CLI', () => {
  it('waits across a worker restart; loom pending shows the request; --always runs it once and allows it later', async () => {
    writeFileSync(join(env.project, 'deploy.log'), '');
    env.model.setScript([
      {
        name: 'first',
        when: { lastUser: 'Deploy twice', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'sh deploy.sh', description: 'Deploy' } }] },
      },
      {
        name: 'second',
        times: 1,
        when: { lastUser: 'Deploy twice', lastRole: 'tool' },
        reply: {
          toolCalls: [{ name: 'bash', args: { command: 'sh deploy.sh --again', description: 'Deploy again' } }],
        },
      },
      { name: 'done', when: { lastUser: 'Deploy twice', lastRole: 'tool' }, reply: { text: 'Deployed twice.' } },
    ]);
    workers.push(await startWorkerProcess(env.env));
    const run = env.spawnLoom(['run', '--json', '-m', 'scripted/test-model', 'Deploy twice']);
    let stderr = '';
    run.child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await waitFor(() => /Answer with: loom approve (per_\w+)/.test(stderr), 30_000);
    const requestId = /Answer with: loom approve (per_\w+)/.exec(stderr)![1];
    expect(stderr).toContain('△ Permission required · bash · sh deploy.sh\n  sh deploy.sh');

    await stopProcess(workers[0], 'SIGTERM');
    workers.push(await startWorkerProcess(env.env));

    const pending = parseJson(await runLoom(['pending', '--json'], { env: env.env }));
    expect(pending).toEqual([
      expect.objectContaining({ id: requestId, permission: 'bash', patterns: ['sh deploy.sh'], always: ['sh *'] }),
    ]);
    expect((await runLoom(['pending'], { env: env.env })).stdout).toContain(`loom approve ${requestId}`);

    const approved = await runLoom(['approve', requestId, '--always'], { env: env.env });
    expect(approved.code).toBe(0);
    expect(approved.stderr).toContain('Allowed always (bash sh *): bash · sh deploy.sh');

    const result = await run.result;
    expect(parseJson(result)).toMatchObject({ status: 'completed', text: 'Deployed twice.' });
    expect(readFileSync(join(env.project, 'deploy.log'), 'utf8')).toBe('deployed\ndeployed\n');
    const requests = (await env.store.permissionRequests()).filter((r) => r.sessionID === parseJson(result).sessionId);
    expect(requests.map((r) => [r.id, r.status])).toEqual([[requestId, 'approved']]);
    expect((await runLoom(['pending', '--json'], { env: env.env })).stdout.trim()).toBe('[]');

    const again = await runLoom(['approve', requestId], { env: env.env });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`Permission request ${requestId} is no longer waiting: it was approved (always)`);
    expect((await runLoom(['approve', 'per_nothing'], { env: env.env })).stderr).toContain(
      'Unknown permission request "per_nothing"',
    );
  }, 120_000);

  it('asks the person at the terminal and sends their answer', async () => {
    await Promise.all(workers.map((worker) => stopProcess(worker, 'SIGTERM')));
    env.model.setScript([
      {
        name: 'ask',
        when: { lastUser: 'Check the date', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'bash', args: { command: 'date', description: 'Date' } }] },
      },
      {
        name: 'told',
        when: { lastUser: 'Check the date', lastRole: 'tool' },
        reply: (r) => ({ text: `Heard: ${String(r.messages.at(-1).content)}` }),
      },
    ]);
    const run = env.spawnLoom(['run', '-m', 'scripted/test-model', 'Check the date'], {
      env: { LOOM_INTERACTIVE: '1' },
      keepStdinOpen: true,
    });
    let stderr = '';
    run.child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await waitFor(() => stderr.includes('Allow? [o]nce'), 30_000);
    run.child.stdin.write('f\n');
    await waitFor(() => stderr.includes('Feedback for the agent'), 10_000);
    run.child.stdin.write('Use the clock on the wall\n');
    const result = await run.result;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      'Heard: The user rejected permission to use this specific tool call with the following feedback: Use the clock on the wall',
    );
  }, 60_000);
});

describe('a real OpenCode project', () => {
  let project: string;
  beforeAll(() => {
    project = join(mkdtempSync(join(tmpdir(), 'loom-opencode-')), 'project');
    cpSync(join(PROJECT_ROOT, 'test', 'fixtures', 'opencode-project'), project, { recursive: true });
  });

  it('lists its agents with mode, model, description and permissions', async () => {
    const listed = await runLoom(['agents', '--json'], { env: env.env, cwd: project });
    const agents =
      parseJson<{ name: string; mode: string; model: string | null; permissions: string[]; default: boolean }[]>(
        listed,
      );
    const byName = Object.fromEntries(agents.map((agent) => [agent.name, agent]));
    expect(agents[0]).toMatchObject({ name: 'build', default: true });
    expect(Object.keys(byName)).toEqual(
      expect.arrayContaining(['build', 'plan', 'general', 'explore', 'review', 'doc-checker', 'docs/writer', 'focus']),
    );
    expect(byName.review).toMatchObject({ mode: 'subagent', model: 'anthropic/claude-sonnet-4-5' });
    expect(byName.review.permissions).toEqual(expect.arrayContaining(['edit: deny', 'webfetch: deny']));
    expect(byName['doc-checker']).toMatchObject({ mode: 'subagent', model: 'ollama/qwen2.5-coder:7b' });
    expect(byName.focus.mode).toBe('primary');
    // explore's "*": "deny" comes after the defaults' asks: they are denied, as a call would find.
    expect(byName.build.permissions).toEqual(expect.arrayContaining(['*: allow', 'unsandboxed: ask']));
    expect(byName.explore.permissions).toContain('*: deny');
    expect(byName.explore.permissions.filter((line) => /^(unsandboxed|config|doom_loop):/.test(line))).toEqual([]);
    const text = await runLoom(['agents'], { env: env.env, cwd: project });
    expect(text.stdout).toContain('Reviews code for quality and best practices');
  });

  it('runs its markdown agent unchanged: its prompt, its rules, its tools', async () => {
    env.model.setScript([
      { name: 'review', when: { system: 'You are in code review mode' }, reply: { text: 'Looks fine.' } },
    ]);
    const result = await runLoom(
      ['run', '--json', '--agent', 'review', '-m', 'scripted/test-model', 'Review the project'],
      { env: env.env, cwd: project },
    );
    expect(parseJson(result)).toMatchObject({ status: 'completed', text: 'Looks fine.' });
    const request = env.model.requests.findLast((r) => r.rule === 'review')!;
    expect(request.toolNames).not.toContain('edit');
    expect(request.toolNames).not.toContain('write');
    expect(request.toolNames).not.toContain('webfetch');
    expect(request.toolNames).toContain('bash');
  });

  it('names the file and key of a malformed agent', async () => {
    writeFileSync(join(project, '.opencode', 'agent', 'broken.md'), '---\nmode: sometimes\n---\nBroken.\n');
    const result = await runLoom(['agents'], { env: env.env, cwd: project });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(join(project, '.opencode', 'agent', 'broken.md'));
    expect(result.stderr).toContain('mode');
  });
});
