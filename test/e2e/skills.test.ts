import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import type { RecordedRequest } from '../../testkit/model/scripted-model-script.js';
import { parseJson } from '../../testkit/loom/run-loom.js';

let env: LoomTestEnv;

const skill = (name: string, description: string, body: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`;

beforeAll(async () => {
  env = await createLoomTestEnv({
    files: {
      '.loom/skills/deploy/SKILL.md': skill(
        'deploy',
        'Ships the app to staging; use when asked to deploy.',
        '## Deploying\n\nRun scripts/ship.sh, then check the log.',
      ),
      '.loom/skills/deploy/scripts/ship.sh': 'echo shipped\n',
      '.opencode/skills/internal-audit/SKILL.md': skill(
        'internal-audit',
        'Audits the ledger.',
        'Internal steps, never for the model.',
      ),
      '.claude/skills/broken/SKILL.md':
        '---\nname: Broken Skill\ndescription: has an invalid name\n---\nNever loaded.\n',
    },
    config: { permission: { skill: { 'internal-*': 'deny' } } },
  });
});
afterAll(() => env?.close());

const toolDescription = (request: RecordedRequest, name: string): string =>
  request.body.tools.find((tool: any) => tool.function.name === name).function.description;

describe('skills through loom run', () => {
  it('lists the skills in the tool description; a call loads the body and names the base directory', async () => {
    env.model.setScript([
      {
        name: 'load',
        when: { lastUser: 'Deploy the app', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'skill', args: { name: 'deploy' } }] },
      },
      {
        name: 'done',
        when: { lastUser: 'Deploy the app', lastRole: 'tool' },
        reply: { text: 'Loaded the deploy skill.' },
      },
    ]);
    const result = await env.loom(['run', '--json', '-m', 'scripted/test-model', 'Deploy the app']);
    expect(parseJson(result)).toMatchObject({ status: 'completed', text: 'Loaded the deploy skill.' });

    const first = env.model.requests.findLast((request) => request.rule === 'load')!;
    expect(first.toolNames).toContain('skill');
    const description = toolDescription(first, 'skill');
    expect(description).toContain('<available_skills>');
    expect(description).toContain(
      '<name>deploy</name>\n    <description>Ships the app to staging; use when asked to deploy.</description>',
    );
    // Denied by pattern: hidden. Malformed: skipped, the run goes on.
    expect(description).not.toContain('internal-audit');
    expect(description).not.toContain('Broken');
    expect(description).not.toContain('Run scripts/ship.sh');

    const second = env.model.requests.findLast((request) => request.rule === 'done')!;
    const base = join(env.project, '.loom', 'skills', 'deploy');
    expect(second.lastTool).toContain('<skill_content name="deploy">');
    expect(second.lastTool).toContain('## Deploying\n\nRun scripts/ship.sh, then check the log.');
    expect(second.lastTool).toContain(`Base directory for this skill: ${base}`);
    expect(second.lastTool).toContain(`<file>${join(base, 'scripts', 'ship.sh')}</file>`);

    const shown = parseJson(await env.loom(['show', parseJson(result).sessionId, '--json']));
    const part = shown.messages.flatMap((message: any) => message.parts).find((p: any) => p.tool === 'skill');
    expect(part.state).toMatchObject({ status: 'completed', title: 'Loaded skill: deploy', input: { name: 'deploy' } });
  }, 120_000);

  it('refuses a denied skill and an unknown one, and the loop goes on', async () => {
    env.model.setScript([
      {
        name: 'try',
        when: { lastUser: 'Audit the ledger', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'skill', args: { name: 'internal-audit' }, id: 'call_denied' },
            { name: 'skill', args: { name: 'audit' }, id: 'call_unknown' },
          ],
        },
      },
      {
        name: 'after',
        when: { lastUser: 'Audit the ledger', lastRole: 'tool' },
        reply: { text: 'Could not load it.' },
      },
    ]);
    const result = await env.loom(['run', '--json', '-m', 'scripted/test-model', 'Audit the ledger']);
    expect(parseJson(result)).toMatchObject({ status: 'completed', text: 'Could not load it.' });

    const after = env.model.requests.findLast((request) => request.rule === 'after')!;
    const toolResults = after.messages
      .filter((message) => message.role === 'tool')
      .map((message) => String(message.content));
    const denied = toolResults.find((text) => text.includes('rule which prevents you'))!;
    expect(denied).toContain('internal-*');
    const unknown = toolResults.find((text) => text.includes('Unknown skill'))!;
    expect(unknown).toContain('Unknown skill "audit". Available skills: deploy, internal-audit');
    expect(unknown).toContain('broken/SKILL.md: invalid skill frontmatter');
    expect(toolResults.join('\n')).not.toContain('Internal steps');
  }, 120_000);

  it('loom skills lists the skills, names the skipped file and the key at fault, and exits 1 for it', async () => {
    const listed = await env.loom(['skills']);
    expect(listed.code).toBe(1);
    expect(listed.stdout).toContain('deploy');
    expect(listed.stdout).toContain('Ships the app to staging');
    expect(listed.stdout).toContain(join(env.project, '.loom', 'skills', 'deploy', 'SKILL.md'));
    expect(listed.stderr).toContain(`Skipped: ${join(env.project, '.claude', 'skills', 'broken', 'SKILL.md')}`);
    expect(listed.stderr).toMatch(/name/);
    const json = parseJson(await env.loom(['skills', '--json']));
    expect(json.skills.map((found: { name: string }) => found.name)).toEqual(['deploy', 'internal-audit']);
    expect(json.skipped).toEqual([expect.stringContaining('broken')]);
  });
});
