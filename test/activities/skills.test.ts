import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { discoverSkills } from '../../activities/config/skills.js';
import { recordWorkspaceConfig, workspaceConfig } from '../../activities/config/workspace-config.js';
import { createRunConfigActivities } from '../../activities/config/run-config-activities.js';
import { SqliteSessionStore } from '../../activities/store/sqlite/store.js';
import { skill as skillHandler } from '../../activities/tools/skill.js';
import { fromConfig } from '../../core/rules/permission.js';
import { describeSkillTool, skill as skillSpec } from '../../core/tools/skill.js';
import { createToolContext } from '../../testkit/model/tool-context.js';
import { write } from '../../testkit/files.js';

let root: string;
let globalDir: string;
/** root/work/project: `root/work` is an ancestor folder with skills of its own. */
let project: string;
let env: NodeJS.ProcessEnv;

const skillFile = (name: string, description: string, body = `How to ${name}.`) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'loom-skills-'));
  globalDir = join(root, 'global');
  project = join(root, 'work', 'project');
  mkdirSync(project, { recursive: true });
  env = { LOOM_CONFIG_DIR: globalDir };
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('skill discovery', () => {
  it('finds SKILL.md files in every place OpenCode and Loom look, sorted by name', () => {
    write(join(globalDir, 'skills', 'mine', 'SKILL.md'), skillFile('mine', 'The user own skill'));
    write(
      join(root, 'work', '.claude', 'skills', 'claude-one', 'SKILL.md'),
      skillFile('claude-one', 'From Claude Code'),
    );
    write(join(project, '.opencode', 'skill', 'oc-single', 'SKILL.md'), skillFile('oc-single', 'Singular folder'));
    write(
      join(project, '.opencode', 'skills', 'team', 'oc-nested', 'SKILL.md'),
      skillFile('oc-nested', 'Grouped in a folder'),
    );
    write(join(project, '.loom', 'skill', 'loom-single', 'SKILL.md'), skillFile('loom-single', 'Loom singular'));
    write(join(project, '.loom', 'skills', 'loom-plural', 'SKILL.md'), skillFile('loom-plural', 'Loom plural'));
    write(
      join(project, '.loom', 'skills', 'loom-plural', 'examples', 'inner', 'SKILL.md'),
      skillFile('inner', 'A file of a skill, not a skill'),
    );
    write(join(project, '.loom', 'skills', 'notes.md'), 'not a skill');
    const { skills, problems } = discoverSkills(project, env);
    expect(problems).toEqual([]);
    expect(skills.map((skill) => skill.name)).toEqual([
      'claude-one',
      'loom-plural',
      'loom-single',
      'mine',
      'oc-nested',
      'oc-single',
    ]);
    expect(skills.find((skill) => skill.name === 'oc-nested')).toEqual({
      name: 'oc-nested',
      description: 'Grouped in a folder',
      location: join(project, '.opencode', 'skills', 'team', 'oc-nested', 'SKILL.md'),
    });
  });

  it('lets later definitions win: project over global, nearer folders over farther, .loom over .opencode over .claude', () => {
    write(join(globalDir, 'skill', 'review', 'SKILL.md'), skillFile('review', 'global'));
    write(join(root, 'work', '.loom', 'skills', 'review', 'SKILL.md'), skillFile('review', 'ancestor'));
    write(join(project, '.claude', 'skills', 'review', 'SKILL.md'), skillFile('review', 'claude'));
    expect(discoverSkills(project, env).skills).toEqual([
      expect.objectContaining({ name: 'review', description: 'claude' }),
    ]);
    write(join(project, '.opencode', 'skills', 'review', 'SKILL.md'), skillFile('review', 'opencode'));
    expect(discoverSkills(project, env).skills[0].description).toBe('opencode');
    write(join(project, '.loom', 'skill', 'review', 'SKILL.md'), skillFile('review', 'loom'));
    expect(discoverSkills(project, env).skills).toEqual([
      expect.objectContaining({ description: 'loom', location: join(project, '.loom', 'skill', 'review', 'SKILL.md') }),
    ]);
    // The name is the frontmatter's, whatever the folder is called (as OpenCode keys skills).
    write(join(project, '.loom', 'skills', 'zz-renamed', 'SKILL.md'), skillFile('review', 'renamed folder'));
    expect(discoverSkills(project, env).skills).toEqual([
      expect.objectContaining({ name: 'review', description: 'renamed folder' }),
    ]);
  });

  it('skips a malformed SKILL.md and names its file and key; the others still load', () => {
    const dir = join(project, '.loom', 'skills');
    write(join(dir, 'good', 'SKILL.md'), skillFile('good', 'Works'));
    write(join(dir, 'bad-yaml', 'SKILL.md'), '---\nname: bad-yaml\ndescription: [unclosed\n---\nBody');
    write(join(dir, 'no-description', 'SKILL.md'), '---\nname: no-description\n---\nBody');
    write(join(dir, 'bad-name', 'SKILL.md'), skillFile('Bad_Name', 'Uppercase and underscore'));
    write(join(dir, 'double', 'SKILL.md'), skillFile('double--hyphen', 'Two hyphens'));
    write(join(dir, 'plain', 'SKILL.md'), 'No frontmatter at all.');
    write(join(dir, 'unclosed', 'SKILL.md'), '---\nname: unclosed\ndescription: never closed\n');
    const { skills, problems } = discoverSkills(project, env);
    expect(skills.map((skill) => skill.name)).toEqual(['good']);
    const messages = problems.map((problem) => problem.message);
    expect(problems.every((problem) => problem.name === 'ConfigError')).toBe(true);
    expect(messages).toHaveLength(6);
    expect(messages).toContainEqual(
      expect.stringMatching(new RegExp(`^${join(dir, 'bad-yaml', 'SKILL.md')}: invalid YAML frontmatter at line \\d`)),
    );
    expect(messages).toContainEqual(
      expect.stringMatching(
        new RegExp(`^${join(dir, 'no-description', 'SKILL.md')}: invalid skill frontmatter\\n  description: `),
      ),
    );
    expect(messages).toContainEqual(
      expect.stringContaining(
        `${join(dir, 'bad-name', 'SKILL.md')}: invalid skill frontmatter\n  name: must be lowercase`,
      ),
    );
    expect(messages).toContainEqual(
      expect.stringContaining(
        `${join(dir, 'double', 'SKILL.md')}: invalid skill frontmatter\n  name: must be lowercase`,
      ),
    );
    expect(messages).toContainEqual(
      expect.stringContaining(`${join(dir, 'plain', 'SKILL.md')}: invalid skill frontmatter\n  name: `),
    );
    expect(messages).toContainEqual(
      expect.stringContaining(`${join(dir, 'unclosed', 'SKILL.md')}: the frontmatter opened on line 1 is never closed`),
    );
  });
});

describe('the skill tool', () => {
  const skills = [
    { name: 'deploy', description: 'Ships the app', location: '/p/.loom/skills/deploy/SKILL.md' },
    { name: 'internal-audit', description: 'Audits the ledger', location: '/p/.loom/skills/internal-audit/SKILL.md' },
  ];

  it('lists the skills the caller may load in its description, and none it denies', () => {
    const all = describeSkillTool(skills, []);
    expect(all).toContain(
      '<available_skills>\n  <skill>\n    <name>deploy</name>\n    <description>Ships the app</description>\n  </skill>',
    );
    expect(all).toContain('<name>internal-audit</name>');
    const rules = fromConfig({ skill: { 'internal-*': 'deny' } });
    expect(describeSkillTool(skills, rules)).not.toContain('internal-audit');
    expect(describeSkillTool(skills, rules)).toContain('<name>deploy</name>');
    expect(describeSkillTool(skills, fromConfig({ skill: 'deny' }))).toContain('No skills are available.');
  });

  it('asks for the skill permission with the skill name as pattern', () => {
    expect(skillSpec.permissions!({ name: 'deploy' }, { directory: '/p' })).toEqual([
      { permission: 'skill', patterns: ['deploy'], always: ['deploy'] },
    ]);
  });

  it('returns the body and the base directory, with a sample of the skill files', async () => {
    const dir = join(project, '.opencode', 'skills', 'deploy');
    write(join(dir, 'SKILL.md'), skillFile('deploy', 'Ships the app', '## Steps\n\nRun scripts/ship.sh.'));
    write(join(dir, 'scripts', 'ship.sh'), 'echo shipped');
    const context = createToolContext(project, { env });
    try {
      const result = await skillHandler({ name: 'deploy' }, context);
      expect(result.title).toBe('Loaded skill: deploy');
      expect(result.output).toContain(
        '<skill_content name="deploy">\n# Skill: deploy\n\n## Steps\n\nRun scripts/ship.sh.\n',
      );
      expect(result.output).toContain(`Base directory for this skill: ${dir}\n`);
      expect(result.output).toContain(`<file>${join(dir, 'scripts', 'ship.sh')}</file>`);
      expect(result.output).not.toContain('<file>' + join(dir, 'SKILL.md'));
      expect(result.output).not.toContain('description:');
    } finally {
      await context.close();
    }
  });

  it('refuses an unknown name, listing the available ones and the files skipped', async () => {
    write(join(project, '.loom', 'skills', 'deploy', 'SKILL.md'), skillFile('deploy', 'Ships the app'));
    write(join(project, '.loom', 'skills', 'review', 'SKILL.md'), skillFile('review', 'Reviews'));
    write(join(project, '.loom', 'skills', 'broken', 'SKILL.md'), '---\nname: broken\n---\n');
    const context = createToolContext(project, { env });
    try {
      const error = await skillHandler({ name: 'deplyo' }, context).catch((caught: Error) => caught);
      expect(error).toMatchObject({ name: 'ToolError' });
      expect((error as Error).message).toContain('Unknown skill "deplyo". Available skills: deploy, review');
      expect((error as Error).message).toContain(
        `${join(project, '.loom', 'skills', 'broken', 'SKILL.md')}: invalid skill frontmatter`,
      );
    } finally {
      await context.close();
    }
  });
});

describe('skills in a run', () => {
  it('travel in the workspace snapshot as names, descriptions and places, never bodies', async () => {
    write(join(globalDir, 'skills', 'mine', 'SKILL.md'), skillFile('mine', 'The user own skill', 'SECRET BODY'));
    write(join(project, '.loom', 'skills', 'deploy', 'SKILL.md'), skillFile('deploy', 'Ships the app', 'ANOTHER BODY'));
    const { record: snapshot } = recordWorkspaceConfig(project, env);
    expect(snapshot.skills?.map((skill) => skill.name)).toEqual(['deploy', 'mine']);
    expect(JSON.stringify(snapshot)).not.toContain('BODY');
    expect(
      recordWorkspaceConfig(join(root, 'elsewhere'), { LOOM_CONFIG_DIR: join(root, 'other') }).record.skills,
    ).toBeUndefined();

    const store = new SqliteSessionStore(join(root, 'loom.db'));
    try {
      await store.saveWorkspaceConfig('wsc_skills', snapshot);
      // A worker without the workspace (another global folder) sees the host's list.
      const seen = await workspaceConfig(
        store,
        { LOOM_CONFIG_DIR: join(root, 'other') },
        { directory: join(root, 'gone'), workspaceConfigId: 'wsc_skills' },
      );
      expect(seen.skills).toEqual(snapshot.skills);
    } finally {
      await store.close();
    }
  });

  it('offers the tool only when the agent may load at least one skill', async () => {
    const store = new SqliteSessionStore(join(root, 'loom.db'));
    const { prepareRun } = createRunConfigActivities({ store, env, dataDir: join(root, 'data') });
    const run = (input: { agent?: string; sessionRules?: never[] } = {}) =>
      prepareRun({
        sessionId: `ses_${Math.random().toString(36).slice(2)}`,
        directory: project,
        model: 'scripted/test-model',
        // The test is the person between runs: their edits of the config files are taken.
        byPerson: true,
        ...input,
      });
    try {
      expect((await run()).tools).not.toContain('skill');
      write(join(project, '.loom', 'skills', 'internal-audit', 'SKILL.md'), skillFile('internal-audit', 'Audits'));
      expect((await run()).tools).toContain('skill');
      // explore denies every tool it is not given.
      expect((await run({ agent: 'explore' })).tools).not.toContain('skill');
      write(join(project, '.loom', 'loom.json'), JSON.stringify({ permission: { skill: { 'internal-*': 'deny' } } }));
      expect((await run()).tools).not.toContain('skill');
      write(join(project, '.loom', 'skills', 'deploy', 'SKILL.md'), skillFile('deploy', 'Ships'));
      expect((await run()).tools).toContain('skill');
      // A broken skill file does not stop the run; the worker's log names it (the console, outside an activity).
      write(join(project, '.loom', 'skills', 'broken', 'SKILL.md'), '---\nname: Broken\ndescription: bad name\n---\n');
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
      expect((await run()).tools).toContain('skill');
      expect(warn).toHaveBeenCalledWith(
        expect.stringContaining(
          `Skipped a skill: ${join(project, '.loom', 'skills', 'broken', 'SKILL.md')}: invalid skill frontmatter\n  name:`,
        ),
      );
    } finally {
      vi.restoreAllMocks();
      await store.close();
    }
  });
});
