import { describe, expect, it } from 'vitest';
import { findAgent, resolveAgents } from '../../core/agents/resolve.js';
import { configPathsAround, isConfigPath } from '../../core/config/config-files.js';
import { decide } from '../../core/rules/permission.js';
import { fileAccess } from '../../core/tool-call/permissions.js';

const options = { home: '/home/u', toolOutputDir: '/data/tool-output' };
const rulesOf = (name: string, config = {}) => findAgent(resolveAgents(config, options), name).permission;

describe("what counts as Loom's configuration", () => {
  it.each([
    ['/p/loom.json', true],
    ['/p/sub/opencode.jsonc', true],
    ['/p/.loom/agents/build.md', true],
    ['/p/.opencode/plugin/guard.ts', true],
    ['/p/.opencode', true],
    ['/p/.claude/skills/deploy/SKILL.md', true],
    ['/p/.loom/plans/next.md', false],
    ['/p/.opencode/plans/next.md', false],
    ['/p/.loom/plans/../loom.json', true],
    ['/p/src/loom.ts', false],
    ['/p/.claude/settings.json', false],
    ['/p/docs/opencode.json.md', false],
  ])('%s: %s', (path, expected) => {
    expect(isConfigPath(path)).toBe(expected);
  });

  it("counts the user's global config folder too", () => {
    expect(isConfigPath('/home/u/.config/loom/plugins/x.ts', { globalConfigDir: '/home/u/.config/loom' })).toBe(true);
    expect(isConfigPath('/home/u/.config/other/x.ts', { globalConfigDir: '/home/u/.config/loom' })).toBe(false);
  });

  it('names the config paths of a folder and of every folder above it', () => {
    const paths = configPathsAround('/work/app');
    expect(paths).toEqual(
      expect.arrayContaining(['/work/app/loom.json', '/work/app/.opencode', '/work/.loom', '/loom.json']),
    );
    expect(paths).not.toContain('/work/app/.loom/plans');
  });
});

describe('the config permission', () => {
  it('asks for a write of a config file on its own, with the file as pattern and "always"', () => {
    const requests = fileAccess('edit', '.loom/loom.json', { directory: '/p' });
    expect(requests.map((request) => request.permission)).toEqual(['edit', 'config']);
    expect(requests[1]).toMatchObject({ patterns: ['.loom/loom.json'], always: ['.loom/loom.json'] });
    expect(requests[1].reason).toContain("Loom's configuration");
    expect(fileAccess('edit', 'src/app.ts', { directory: '/p' }).map((request) => request.permission)).toEqual([
      'edit',
    ]);
    expect(fileAccess('read', 'loom.json', { directory: '/p' }).map((request) => request.permission)).toEqual(['read']);
  });

  it('asks by default whatever edit allows, and explore denies it', () => {
    const [, config] = fileAccess('edit', 'loom.json', { directory: '/p' });
    expect(decide(config, rulesOf('build', { permission: { edit: 'allow' } }))).toEqual({ action: 'ask' });
    expect(decide(config, rulesOf('build', { permission: { config: 'allow' } }))).toEqual({ action: 'allow' });
    expect(decide(config, rulesOf('explore')).action).toBe('deny');
  });
});
