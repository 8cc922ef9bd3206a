import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchEnv } from './harness.js';
import { openCodeOutput, type OpenCodeSetup } from './opencode-setup.js';
import { openCodeTranscript, type OpenCodeExport } from './opencode-transcript.js';
import { READ_OUTPUT, seededText } from './tui-transcripts.js';

const TEMPLATE_PROMPT = 'Read the readme for the template.';

/**
 * The `count`-message session of `seedTranscript` in OpenCode's own store: one real run (a `read`
 * call, then an answer) exported as the template of its records, the session built from it
 * imported with `opencode import`. Its id.
 */
export async function importOpenCodeSession(bench: BenchEnv, setup: OpenCodeSetup, count: number): Promise<string> {
  bench.model.setScript([
    {
      when: { lastUser: TEMPLATE_PROMPT, lastRole: 'user' },
      reply: { toolCalls: [{ name: 'read', args: { filePath: join(setup.project, 'README.md') } }] },
    },
    { when: { lastUser: TEMPLATE_PROMPT, lastRole: 'tool' }, reply: { text: 'It says **Bench project**.' } },
    // Its title.
    { reply: { text: 'Template' } },
  ]);
  const events = await openCodeOutput(setup, ['run', '--format', 'json', '-m', 'scripted/test-model', TEMPLATE_PROMPT]);
  const templateId = /"sessionID":"(ses_[^"]+)"/.exec(events)?.[1];
  if (!templateId) throw new Error(`opencode run --format json named no session:\n${events.slice(0, 2000)}`);
  const template = JSON.parse(await openCodeOutput(setup, ['export', templateId])) as OpenCodeExport;
  const session = openCodeTranscript(template, count, {
    text: (index) => seededText(index, count),
    readOutput: READ_OUTPUT,
  });
  const folder = mkdtempSync(join(setup.root, 'import-'));
  try {
    const file = join(folder, 'session.json');
    writeFileSync(file, JSON.stringify(session));
    await openCodeOutput(setup, ['import', file]);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  return session.info.id;
}
