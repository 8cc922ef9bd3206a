import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { parseJson } from '../../testkit/loom/run-loom.js';

let env: LoomTestEnv;

beforeAll(async () => {
  env = await createLoomTestEnv();
});
afterAll(() => env?.close());

const MiB = 1024 * 1024;
const bigPrompt = (label: string, bytes: number) =>
  `${label}\n${'lorem ipsum '.repeat(Math.ceil(bytes / 12))}`.slice(0, bytes);

describe('prompts larger than a Temporal payload', () => {
  it('runs a 3 MiB prompt from stdin: the prompt goes to the store, the run gets its id', async () => {
    env.model.setScript([
      { when: { lastUser: /^Review this dump/ }, reply: (r) => ({ text: `Read ${r.lastUser.length} characters.` }) },
    ]);
    const prompt = bigPrompt('Review this dump', 3 * MiB);
    const result = await env.loom(['run', '--json', '--model', 'scripted/test-model'], { input: prompt });
    expect(result.stderr).not.toContain('Failed to start Workflow');
    expect(result.code).toBe(0);
    const output = parseJson(result);
    expect(output).toMatchObject({ status: 'completed', text: `Read ${prompt.length} characters.` });
    const messages = await env.store.messages(output.sessionId);
    expect(messages.filter((m) => m.info.role === 'user')).toHaveLength(1);
    expect(messages[0].parts[0]).toMatchObject({ type: 'text', text: prompt });
  });

  it('refuses a prompt over the limit up front, saying its size and the limit', async () => {
    const sessionsBefore = (await env.store.listSessions()).length;
    const result = await env.loom(['run', '--model', 'scripted/test-model'], {
      input: bigPrompt('Too much', 2 * MiB),
      env: { LOOM_MAX_PROMPT_BYTES: String(MiB) },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Prompt refused: the prompt is 2.0 MiB, over the limit of 1.0 MiB');
    expect(result.stderr).toContain('max_prompt_bytes');
    expect((await env.store.listSessions()).length).toBe(sessionsBefore);
  });

  it('runs a batch task with a 10 MB prompt once, storing it without copies piling up', async () => {
    env.model.setScript([{ when: { lastUser: /^Huge task/ }, reply: { text: 'Handled the huge task.' } }]);
    const file = join(env.project, 'huge.jsonl');
    writeFileSync(
      file,
      [
        { description: 'Small', prompt: 'Huge task, small prompt' },
        { description: 'Huge', prompt: bigPrompt('Huge task', 10 * MiB) },
      ]
        .map((line) => JSON.stringify(line))
        .join('\n'),
    );

    // Over the default limit of 8 MiB: refused, naming the file and the line.
    const refused = await env.loom(['batch', 'run', file]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`${file}:2: the prompt is 10.0 MiB, over the limit of 8.0 MiB`);

    const run = await env.loom(['batch', 'run', file, '--json', '-m', 'scripted/test-model'], {
      env: { LOOM_MAX_PROMPT_BYTES: String(16 * MiB) },
    });
    expect(run.code).toBe(0);
    expect(parseJson(run)).toMatchObject({ status: 'completed', done: 2, failed: 0 });
    const results = (await env.loom(['batch', 'results', parseJson(run).batchId, '--json'])).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const huge = results.find((line) => line.description === 'Huge');
    expect(huge).toMatchObject({ status: 'completed', attempts: 1, text: 'Handled the huge task.' });
    expect((await env.store.messages(huge.sessionId)).filter((m) => m.info.role === 'user')).toHaveLength(1);
    // The batch's task, the prompt the session read and its user message: a few copies, not one per retry.
    expect(statSync(join(env.dataDir, 'loom.db')).size + walSize()).toBeLessThan(60 * MiB);
  }, 120_000);
});

function walSize(): number {
  try {
    return statSync(join(env.dataDir, 'loom.db-wal')).size;
  } catch {
    return 0;
  }
}
