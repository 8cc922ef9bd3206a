import { defaultPayloadConverter } from '@temporalio/common';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentAttribute, RootSessionAttribute } from '../../core/runs/search-attributes.js';
import { createCliEnv, exploreScript } from '../../testkit/loom/cli-env.js';
import type { LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { parseJson } from '../../testkit/loom/run-loom.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createCliEnv();
});
afterAll(() => env?.close());

const loom = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) => env.loom(args, { env: extraEnv });

// Running in a terminal, stopping the CLI and a worker without a server are in cli-terminal.test.ts, run beside this file.
describe('loom run, show, resume and ls', () => {
  let sessionId: string;

  it('runs a session that reads and globs, printing one JSON object', async () => {
    exploreScript(env.model);
    const result = await loom(['run', '--json', '--model', 'scripted/test-model', 'What is in this project?']);
    const output = parseJson(result);
    expect(result.code).toBe(0);
    expect(output).toMatchObject({ status: 'completed', text: 'A demo with two TypeScript files.' });
    expect(Object.keys(output).sort()).toEqual(['sessionId', 'status', 'text', 'tokens']);
    expect(output.tokens.input).toBeGreaterThan(0);
    sessionId = output.sessionId;
  });

  it('shows every message and part', async () => {
    const shown = parseJson(await loom(['show', sessionId, '--json']));
    expect(shown.session).toMatchObject({
      id: sessionId,
      agent: 'build',
      model: 'scripted/test-model',
      status: 'idle',
      directory: env.project,
    });
    const parts = shown.messages.flatMap((m: any) =>
      m.parts.map((p: any) => `${m.info.role}:${p.type}${p.tool ? `:${p.tool}:${p.state.status}` : ''}`),
    );
    expect(parts).toEqual([
      'user:text',
      'assistant:text',
      'assistant:tool:read:completed',
      'assistant:tool:glob:completed',
      'assistant:text',
    ]);

    const text = await loom(['show', sessionId]);
    expect(text.stdout).toContain('What is in this project?');
    expect(text.stdout).toContain('✓ read README.md');
    expect(text.stdout).toContain('hello from the readme');
    expect(text.stdout).toContain('✓ glob src/**/*.ts');
    expect(text.stdout).toContain('A demo with two TypeScript files.');
  });

  it('resumes under the same workflow id, and the model is shown the earlier turns', async () => {
    const result = await loom(['resume', sessionId, 'Which one exports b?']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('src/b.ts exports b.');
    const request = env.model.requests.find((r) => r.rule === 'follow-up')!;
    expect(request.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'user',
    ]);
    expect(JSON.stringify(request.messages)).toContain('hello from the readme');

    const runs = [];
    for await (const run of env.client.workflow.list({ query: `WorkflowId = '${sessionId}'` })) runs.push(run.runId);
    expect(new Set(runs).size).toBe(2);
  });

  it('lists the session', async () => {
    const sessions = parseJson(await loom(['ls', '--json']));
    expect(sessions.map((s: any) => s.id)).toContain(sessionId);
    expect((await loom(['ls'])).stdout).toContain(sessionId);
  });

  it("lists only this project folder's sessions, unless --all-projects", async () => {
    const other = join(env.project, '..', 'other-project');
    const empty = join(env.project, '..', 'empty-project');
    mkdirSync(other, { recursive: true });
    mkdirSync(empty, { recursive: true });
    const now = Date.now();
    const elsewhere = {
      id: 'ses_elsewhere',
      title: 'Work in another project',
      agent: 'build',
      model: 'scripted/test-model',
      directory: other,
      status: 'idle' as const,
    };
    await env.store.saveSession({ ...elsewhere, time: { created: now, updated: now } });

    const here = await loom(['ls']);
    expect(here.stdout).toContain(sessionId);
    expect(here.stdout).not.toContain('ses_elsewhere');
    // Piped: no header line, a session on every line.
    expect(
      here.stdout
        .trim()
        .split('\n')
        .every((line) => line.startsWith('ses_')),
    ).toBe(true);
    expect(parseJson(await loom(['ls', '--json'])).map((s: any) => s.id)).not.toContain('ses_elsewhere');
    expect(parseJson(await loom(['ls', '--json', '--dir', other])).map((s: any) => s.id)).toEqual(['ses_elsewhere']);

    const everywhere = await loom(['ls', '--all-projects']);
    const line = everywhere.stdout.split('\n').find((candidate) => candidate.startsWith('ses_elsewhere'));
    expect(line).toMatch(/ses_elsewhere\s+idle\s+build\s+\S+ \S+\s+(\S+)\s+Work in another project/);
    expect(/ses_elsewhere\s+idle\s+build\s+\S+ \S+\s+(\S+)/.exec(line!)![1]).toBe(other);
    expect(everywhere.stdout).toContain(sessionId);

    const total = (await env.store.listSessions({ roots: true })).length;
    const none = await loom(['ls', '--dir', empty]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('');
    expect(none.stderr.trim()).toBe(
      `No sessions in ${empty}. \`loom ls --all-projects\` lists the ${total} sessions of other projects.`,
    );
  });

  it('labels the run and its activities for the Temporal UI', async () => {
    const handle = env.client.workflow.getHandle(sessionId);
    const first = env.client.workflow.getHandle(sessionId, (await firstRunId(sessionId))!);
    expect(await (await first.describe()).staticSummary()).toBe('build · What is in this project?');
    expect(await (await first.describe()).staticDetails()).toContain('What is in this project?');
    const description = await handle.describe();
    expect(description.typedSearchAttributes.get(AgentAttribute)).toBe('build');
    expect(description.typedSearchAttributes.get(RootSessionAttribute)).toBe(sessionId);

    const history = await first.fetchHistory();
    const summaries = (history.events ?? []).flatMap((event) => {
      const payload = event.userMetadata?.summary;
      // The quick tools run as local activities: their summaries are on their markers.
      return (event.activityTaskScheduledEventAttributes || event.markerRecordedEventAttributes) && payload
        ? [defaultPayloadConverter.fromPayload<string>(payload as never)]
        : [];
    });
    expect(summaries.filter((s) => s.startsWith('llm'))).toEqual([
      'llm scripted/test-model · step 1',
      'llm scripted/test-model · step 2',
    ]);
    // The two calls ran side by side: their markers are in the order they finished.
    expect(summaries.slice(1, 3).sort()).toEqual(['glob · src/**/*.ts', 'read · README.md']);
  });
});

async function firstRunId(workflowId: string): Promise<string | undefined> {
  const runs = [];
  for await (const run of env.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) runs.push(run);
  return runs.sort((a, b) => a.startTime.getTime() - b.startTime.getTime())[0]?.runId;
}

describe('loom compact', () => {
  it('reports the tokens of the summary it wrote', async () => {
    env.model.setScript([
      {
        name: 'chat',
        when: { lastUser: 'Tell me about the parser', lastRole: 'user' },
        reply: { text: 'It is recursive descent.' },
      },
      {
        name: 'summary',
        when: { lastUser: /Write a detailed continuation prompt/ },
        reply: { text: '## Goal\nUnderstand the parser.', usage: { prompt_tokens: 100, completion_tokens: 10 } },
      },
    ]);
    const run = parseJson(await loom(['run', '--json', '-m', 'scripted/test-model', 'Tell me about the parser']));
    const compacted = await loom(['compact', run.sessionId]);
    expect(compacted.code).toBe(0);
    expect(compacted.stderr).toContain(`● ${run.sessionId} · completed · 1 step · 110 tokens`);
    expect((await loom(['show', run.sessionId])).stdout).toContain('summary · stop · 110 tokens');
  });
});

describe('loom agents', () => {
  it("counts an agent's steps in the singular when there is one", async () => {
    const folder = join(env.project, '..', 'agents-project');
    mkdirSync(folder, { recursive: true });
    writeFileSync(
      join(folder, 'loom.json'),
      JSON.stringify({ agent: { quick: { mode: 'subagent', description: 'Answers in one go', steps: 1 } } }),
    );
    const result = await loom(['agents', '--dir', folder]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/quick {2}subagent · session model · 1 step\n/);
  });
});

describe('bad input', () => {
  it('names an unknown session', async () => {
    const result = await loom(['resume', 'ses_doesnotexist', 'hello']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Unknown session "ses_doesnotexist"');
    expect((await loom(['show', 'ses_doesnotexist'])).stderr).toContain('Unknown session "ses_doesnotexist"');
  });

  it('explains the form of a malformed --model', async () => {
    const result = await loom(['run', '--model', 'gpt-4o', 'hello']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Invalid model "gpt-4o": expected provider/model');
  });

  it('names an unreachable TEMPORAL_ADDRESS', async () => {
    const result = await loom(['run', '-m', 'scripted/test-model', 'hello'], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      'Error: Cannot use Temporal at 127.0.0.1:1 (TEMPORAL_ADDRESS), namespace default: nothing answers there (is the server running, and is this its gRPC port?).',
    );
  });

  it('stores and prints a rejected API key without retrying', async () => {
    env.model.setScript([{ name: 'denied', reply: { status: 401, errorMessage: 'Incorrect API key provided' } }]);
    const before = env.model.requests.length;
    const result = await loom(['run', '--json', '-m', 'scripted/test-model', 'hello']);
    expect(result.code).toBe(1);
    const output = parseJson(result);
    expect(output).toMatchObject({ status: 'failed', error: { name: 'ModelAuthError' } });
    expect(output.error.message).toContain('Incorrect API key provided');
    expect(env.model.requests.length - before).toBe(1);
    const [, answer] = await env.store.messages(output.sessionId);
    expect(answer.info).toMatchObject({ error: { name: 'ModelAuthError' } });
  });

  it('gives up on an unreachable model endpoint and says where it tried', async () => {
    const result = await loom(['run', '-m', 'dead/test-model', 'hello'], {
      LOOM_MODEL_MAX_ATTEMPTS: '2',
      LOOM_MODEL_RETRY_INITIAL_MS: '100',
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/ModelUnreachable: Cannot reach dead\/test-model at http:\/\/127\.0\.0\.1:\d+\/v1/);
  });
});
