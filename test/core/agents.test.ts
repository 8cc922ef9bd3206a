import { describe, expect, it } from 'vitest';
import { defaultAgentName, findAgent, resolveAgents } from '../../core/agents/resolve.js';
import type { LoomConfig } from '../../core/config/config.js';
import { decide, disabled, evaluate } from '../../core/rules/permission.js';
import { toolSpecs } from '../../core/tools/index.js';

const tools = Object.keys(toolSpecs);
const options = { home: '/home/dev', toolOutputDir: '/data/loom/tool-output' };
const agent = (name: string, config: LoomConfig = {}) => findAgent(resolveAgents(config, options), name);
const offered = (name: string, config: LoomConfig = {}) => {
  const hidden = disabled(tools, agent(name, config).permission);
  return tools.filter((tool) => !hidden.has(tool)).sort();
};

describe('built-in agents', () => {
  it('lists build, plan, general, explore and the hidden compaction, title and summary', () => {
    const agents = resolveAgents({}, options);
    expect(agents.map((a) => `${a.name}:${a.mode}${a.hidden ? ':hidden' : ''}`)).toEqual([
      'build:primary',
      'plan:primary',
      'general:subagent',
      'explore:subagent',
      'compaction:primary:hidden',
      'title:primary:hidden',
      'summary:primary:hidden',
    ]);
    expect(defaultAgentName(agents, {})).toBe('build');
  });

  it('gives build every tool, with .env files and other folders behind an ask', () => {
    const build = agent('build');
    expect(offered('build')).toEqual(tools.filter((tool) => tool !== 'batch').sort());
    expect(offered('build', { permission: { batch: 'allow' } })).toContain('batch');
    expect(evaluate('read', '/p/.env', build.permission).action).toBe('ask');
    expect(evaluate('read', '/p/.env.example', build.permission).action).toBe('allow');
    expect(evaluate('external_directory', '/elsewhere/*', build.permission).action).toBe('ask');
    expect(evaluate('external_directory', '/data/loom/tool-output/*', build.permission).action).toBe('allow');
    expect(evaluate('doom_loop', 'read', build.permission).action).toBe('ask');
  });

  it('keeps plan from editing anything but plan files, while edit stays offered', () => {
    const plan = agent('plan');
    expect(offered('plan')).toContain('edit');
    expect(evaluate('edit', 'src/app.ts', plan.permission).action).toBe('deny');
    expect(evaluate('edit', '.loom/plans/next.md', plan.permission).action).toBe('allow');
  });

  it('offers explore only tools that look, and general no todo list', () => {
    expect(offered('explore')).toEqual(['bash', 'glob', 'grep', 'list', 'read', 'webfetch']);
    expect(evaluate('read', '/p/.env', agent('explore').permission).action).toBe('ask');
    expect(offered('general')).not.toContain('todowrite');
    expect(offered('general')).not.toContain('todoread');
    expect(offered('general')).toContain('edit');
  });
});

describe('agents from configuration', () => {
  it('changes only the keys given on a built-in, appending its rules', () => {
    const build = agent('build', {
      agent: { build: { temperature: 0.2, permission: { bash: { '*': 'ask', 'git status*': 'allow' } } } },
    });
    expect(build).toMatchObject({ temperature: 0.2, mode: 'primary', native: true });
    expect(evaluate('bash', 'npm publish', build.permission).action).toBe('ask');
    expect(evaluate('bash', 'git status --short', build.permission).action).toBe('allow');
  });

  it('lets the global permission loosen a built-in, as OpenCode does', () => {
    expect(evaluate('edit', 'src/a.ts', agent('plan', { permission: { edit: 'allow' } }).permission).action).toBe(
      'allow',
    );
  });

  it('makes a new agent mode "all", with extra keys as provider options and legacy tools as rules', () => {
    const reviewer = agent('reviewer', {
      agent: {
        reviewer: {
          description: 'Reviews',
          prompt: 'Review.',
          tools: { write: false },
          reasoningEffort: 'low',
          steps: 5,
        } as never,
      },
    });
    expect(reviewer).toMatchObject({
      mode: 'all',
      native: false,
      steps: 5,
      prompt: 'Review.',
      options: { reasoningEffort: 'low' },
    });
    expect(offered('reviewer', { agent: { reviewer: { tools: { write: false } } } })).not.toContain('write');
  });

  it('removes a disabled agent and honours default_agent', () => {
    const agents = resolveAgents({ agent: { build: { disable: true } } }, options);
    expect(agents.map((a) => a.name)).not.toContain('build');
    expect(defaultAgentName(agents, {})).toBe('plan');
    expect(() => defaultAgentName(resolveAgents({}, options), { default_agent: 'explore' })).toThrow(
      /must be a primary, visible agent/,
    );
    expect(() => defaultAgentName(resolveAgents({}, options), { default_agent: 'nobody' })).toThrow(
      /Available agents: build, plan/,
    );
  });

  it('expands ~ in patterns and drops tool-output access for an agent that denies other folders', () => {
    const strict = agent('strict', {
      agent: { strict: { permission: { external_directory: 'deny', read: { '~/secrets/*': 'deny' } } } },
    });
    expect(evaluate('read', '/home/dev/secrets/key', strict.permission).action).toBe('deny');
    expect(
      decide(
        { permission: 'external_directory', patterns: ['/data/loom/tool-output/*'], always: [] },
        strict.permission,
      ).action,
    ).toBe('deny');
  });

  it('names an unknown agent and the ones there are', () => {
    expect(() => agent('revieww')).toThrow('Unknown agent "revieww". Available agents: build, plan, general, explore');
  });
});
