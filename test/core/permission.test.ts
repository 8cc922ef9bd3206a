import { describe, expect, it } from 'vitest';
import { PermissionConfigSchema } from '../../core/config/permission-config.js';
import {
  REJECTED_MESSAGE,
  alwaysRules,
  correctedMessage,
  decide,
  deniedMessage,
  disabled,
  evaluate,
  fromConfig,
  merge,
  permissionOfTool,
  wildcardMatch,
  type PermissionConfig,
  type Ruleset,
} from '../../core/rules/permission.js';
import { DEFAULT_PERMISSION } from '../../core/agents/builtin.js';

/** OpenCode's global defaults (reference §3.5), which Loom's built-in agents start from. */
const DEFAULTS: PermissionConfig = DEFAULT_PERMISSION;

const action = (permission: string, pattern: string, ...rulesets: Ruleset[]) =>
  evaluate(permission, pattern, ...rulesets).action;

describe('wildcardMatch', () => {
  it.each([
    // [value, pattern, matches]
    ['anything at all', '*', true],
    ['', '*', true],
    ['src/a/b.ts', 'src/*', true], // `*` crosses `/`
    ['src/a/b.ts', 'src/*.ts', true],
    ['lib/a.ts', 'src/*', false],
    ['a.ts', 'a.?s', true],
    ['a.ts', 'a.?', false],
    ['a/s', 'a?s', true], // `?` matches `/` too
    ['a.b', 'a.b', true],
    ['aXb', 'a.b', false], // `.` is literal
    ['(x)', '(x)', true],
    ['x', '(x)', false],
    ['[y]', '[y]', true],
    ['y', '[y]', false],
    ['a+', 'a+', true],
    ['aa', 'a+', false],
    ['$HOME^{1}|2', '$HOME^{1}|2', true],
    ['C:/Users/me/a.ts', 'C:\\Users\\me\\*', true], // backslashes in the pattern
    ['C:\\Users\\me\\a.ts', 'C:/Users/me/*', true], // and in the value
    ['git status', 'git status *', true], // trailing ` *` is optional
    ['git status -s', 'git status *', true],
    ['git statusx', 'git status *', false],
    ['git status', 'git status*', true],
    ['git statusx', 'git status*', true],
    ['ls', 'ls *', true],
    ['ls -la', 'ls *', true],
    ['lsblk', 'ls *', false],
    ['echo "a\nb"', 'echo *', true], // dotall
    ['line1\nline2', 'line1*', true],
    ['Git status', 'git *', false], // case-sensitive
    ['a', 'ab', false], // anchored
    ['ab', 'a', false],
    ['xab', 'ab', false],
    ['mymcp_search', 'mymcp_*', true],
    ['othermcp_search', 'mymcp_*', false],
  ])('%j against %j → %s', (value, pattern, expected) => {
    expect(wildcardMatch(value, pattern)).toBe(expected);
  });
});

describe('fromConfig', () => {
  it('turns a top-level action into a rule for every permission and pattern', () => {
    expect(fromConfig('deny')).toEqual([{ permission: '*', pattern: '*', action: 'deny' }]);
  });

  it('gives an action string pattern `*` and an object one rule per key, in key order', () => {
    expect(fromConfig({ edit: 'ask', bash: { 'git *': 'allow', '*': 'deny' } })).toEqual([
      { permission: 'edit', pattern: '*', action: 'ask' },
      { permission: 'bash', pattern: 'git *', action: 'allow' },
      { permission: 'bash', pattern: '*', action: 'deny' },
    ]);
  });

  it('keeps the key order of the JSON text', () => {
    const config = JSON.parse(
      '{"bash": {"*": "ask", "git status*": "allow", "git push*": "deny"}, "*": "deny", "read": "allow"}',
    );
    expect(fromConfig(config).map((rule) => `${rule.permission} ${rule.pattern} ${rule.action}`)).toEqual([
      'bash * ask',
      'bash git status* allow',
      'bash git push* deny',
      '* * deny',
      'read * allow',
    ]);
  });

  it('returns no rules for no config', () => {
    expect(fromConfig(undefined)).toEqual([]);
    expect(fromConfig({})).toEqual([]);
  });

  it('expands the home folder in patterns when it is known', () => {
    const rules = fromConfig(
      {
        read: { '~/secrets/*': 'deny', '~': 'ask', '$HOME/x': 'allow', $HOME: 'ask', 'src/~/a': 'allow' },
        bash: 'allow',
      },
      { home: '/home/me' },
    );
    expect(rules.map((rule) => rule.pattern)).toEqual([
      '/home/me/secrets/*',
      '/home/me',
      '/home/me/x',
      '/home/me',
      'src/~/a',
      '*',
    ]);
    expect(action('read', '/home/me/secrets/key.pem', rules)).toBe('deny');
  });

  it('expands `$HOME…` as OpenCode does, and leaves patterns alone without a home', () => {
    expect(fromConfig({ read: { $HOMEdir: 'deny' } }, { home: '/home/me' })[0].pattern).toBe('/home/medir');
    expect(fromConfig({ read: { '~/secrets/*': 'deny' } })[0].pattern).toBe('~/secrets/*');
  });
});

describe('merge', () => {
  it('concatenates in order, skipping missing rulesets, without de-duplicating', () => {
    const a: Ruleset = [{ permission: 'read', pattern: '*', action: 'allow' }];
    const b: Ruleset = [
      { permission: 'read', pattern: '*', action: 'allow' },
      { permission: 'edit', pattern: '*', action: 'deny' },
    ];
    expect(merge(a, undefined, b)).toEqual([...a, ...b]);
    expect(merge()).toEqual([]);
  });
});

describe('evaluate', () => {
  it('asks when no rule matches', () => {
    expect(evaluate('bash', 'ls', [])).toEqual({ permission: 'bash', pattern: '*', action: 'ask' });
    expect(evaluate('bash', 'ls', fromConfig({ read: 'allow' }))).toEqual({
      permission: 'bash',
      pattern: '*',
      action: 'ask',
    });
  });

  it('returns the last matching rule', () => {
    const rules = fromConfig({ bash: { '*': 'ask', 'git *': 'allow', 'git push *': 'deny' } });
    expect(evaluate('bash', 'git push origin', rules)).toEqual({
      permission: 'bash',
      pattern: 'git push *',
      action: 'deny',
    });
    expect(action('bash', 'git log', rules)).toBe('allow');
    expect(action('bash', 'rm -rf /', rules)).toBe('ask');
  });

  it('lets a later broad rule override an earlier specific one', () => {
    const rules = fromConfig({ bash: { 'git *': 'allow', '*': 'deny' } });
    expect(action('bash', 'git status', rules)).toBe('deny');
  });

  it('matches the permission name as a wildcard too', () => {
    const rules = fromConfig({ '*': 'ask', mymcp_: 'deny', 'mymcp_*': 'allow' });
    expect(action('mymcp_search', '*', rules)).toBe('allow');
    expect(action('othermcp_search', '*', rules)).toBe('ask');
  });

  it('flattens several rulesets in order, so later ones win', () => {
    const agent = fromConfig({ edit: 'deny' });
    const session = fromConfig({ edit: { 'src/*': 'allow' } });
    const approved: Ruleset = [{ permission: 'edit', pattern: 'docs/*', action: 'allow' }];
    expect(action('edit', 'src/a.ts', agent, session, approved)).toBe('allow');
    expect(action('edit', 'docs/a.md', agent, session, approved)).toBe('allow');
    expect(action('edit', 'test/a.ts', agent, session, approved)).toBe('deny');
    expect(action('edit', 'src/a.ts', session, agent)).toBe('deny');
  });

  it('applies the default `.env` rules to reads', () => {
    const rules = fromConfig(DEFAULTS);
    expect(action('read', '/p/.env', rules)).toBe('ask');
    expect(action('read', '/p/.env.local', rules)).toBe('ask');
    expect(action('read', '/p/.env.example', rules)).toBe('allow');
    expect(action('read', '/p/a.ts', rules)).toBe('allow');
    expect(action('batch', '*', rules)).toBe('deny');
    expect(action('doom_loop', 'bash', rules)).toBe('ask');
    expect(action('external_directory', '/tmp/*', rules)).toBe('ask');
    expect(action('bash', 'ls', rules)).toBe('allow');
  });

  it('lets user config loosen a built-in agent after the fact', () => {
    const plan = merge(fromConfig(DEFAULTS), fromConfig({ edit: { '*': 'deny', '.opencode/plans/*.md': 'allow' } }));
    expect(action('edit', 'src/a.ts', plan)).toBe('deny');
    expect(action('edit', '.opencode/plans/p.md', plan)).toBe('allow');
    expect(action('edit', 'src/a.ts', plan, fromConfig({ edit: 'allow' }))).toBe('allow');
  });
});

describe('disabled', () => {
  const TOOLS = ['bash', 'read', 'write', 'edit', 'apply_patch', 'multiedit', 'patch', 'glob', 'task', 'mymcp_search'];

  it('keeps a tool whose last rule allows some patterns', () => {
    expect(disabled(['bash'], fromConfig({ bash: { '*': 'deny', 'git *': 'allow' } }))).toEqual(new Set());
  });

  it('hides a tool whose last rule denies everything', () => {
    expect(disabled(['bash'], fromConfig({ bash: { 'git *': 'allow', '*': 'deny' } }))).toEqual(new Set(['bash']));
  });

  it('hides the whole edit family for `edit: deny`', () => {
    expect(disabled(TOOLS, fromConfig({ edit: 'deny' }))).toEqual(
      new Set(['write', 'edit', 'apply_patch', 'multiedit', 'patch']),
    );
  });

  it('keeps only what a later rule allows after `"*": "deny"`', () => {
    const hidden = disabled(TOOLS, fromConfig({ '*': 'deny', read: 'allow' }));
    expect(TOOLS.filter((tool) => !hidden.has(tool))).toEqual(['read']);
  });

  it('ignores rules for other permissions and the rules’ patterns while matching', () => {
    expect(disabled(['read'], fromConfig({ read: 'deny', edit: 'allow' }))).toEqual(new Set(['read']));
    expect(disabled(['read'], fromConfig({ read: { '*.env': 'deny' } }))).toEqual(new Set());
    expect(disabled(['read'], [])).toEqual(new Set());
  });

  it('keeps edit visible for the plan agent, whose last edit rule allows a path', () => {
    const plan = merge(fromConfig(DEFAULTS), fromConfig({ edit: { '*': 'deny', '.opencode/plans/*.md': 'allow' } }));
    expect(disabled(TOOLS, plan)).toEqual(new Set());
  });

  it('hides tools by wildcard permission names', () => {
    expect(disabled(TOOLS, fromConfig({ 'mymcp_*': 'deny' }))).toEqual(new Set(['mymcp_search']));
  });
});

describe('permissionOfTool', () => {
  it('maps the edit family to edit and leaves other tools alone', () => {
    expect(['write', 'edit', 'patch', 'multiedit', 'apply_patch'].map(permissionOfTool)).toEqual([
      'edit',
      'edit',
      'edit',
      'edit',
      'edit',
    ]);
    expect(['read', 'bash', 'task', 'mymcp_search'].map(permissionOfTool)).toEqual([
      'read',
      'bash',
      'task',
      'mymcp_search',
    ]);
  });
});

describe('decide', () => {
  const rules = fromConfig({
    '*': 'allow',
    bash: { '*': 'ask', 'git *': 'allow', 'npm test': 'allow', 'rm *': 'deny' },
    edit: 'deny',
  });
  const bash = (...patterns: string[]) => ({ permission: 'bash', patterns, always: [] });

  it('allows when every pattern is allowed', () => {
    expect(decide(bash('git status', 'npm test'), rules)).toEqual({ action: 'allow' });
  });

  it('asks once when any pattern asks', () => {
    expect(decide(bash('git status', 'make', 'npm test'), rules)).toEqual({ action: 'ask' });
  });

  it('denies when any pattern is denied, even after one that asks, with the rules for the permission', () => {
    expect(decide(bash('make', 'rm -rf build', 'git status'), rules)).toEqual({
      action: 'deny',
      rules: [
        { permission: '*', pattern: '*', action: 'allow' },
        { permission: 'bash', pattern: '*', action: 'ask' },
        { permission: 'bash', pattern: 'git *', action: 'allow' },
        { permission: 'bash', pattern: 'npm test', action: 'allow' },
        { permission: 'bash', pattern: 'rm *', action: 'deny' },
      ],
    });
  });

  it('checks the rulesets in order, later ones winning', () => {
    const approved = alwaysRules({ permission: 'bash', patterns: ['make'], always: ['make *'] });
    expect(decide(bash('make build', 'git status'), rules, approved)).toEqual({ action: 'allow' });
    expect(decide({ permission: 'edit', patterns: ['a.ts'], always: ['*'] }, rules).action).toBe('deny');
  });

  it('allows a request with no patterns', () => {
    expect(decide(bash(), rules)).toEqual({ action: 'allow' });
  });

  it('asks for an explicit request that only a wildcard rule would allow, and lets a rule naming it exactly allow it', () => {
    const local = {
      permission: 'webfetch',
      patterns: ['http://127.0.0.1:8080/'],
      always: ['http://127.0.0.1:8080/'],
      explicit: true,
    };
    expect(decide(local, rules)).toEqual({ action: 'ask' });
    expect(decide(local, fromConfig({ webfetch: 'allow' }))).toEqual({ action: 'ask' });
    expect(decide(local, rules, fromConfig({ webfetch: { 'http://127.0.0.1:8080/*': 'allow' } }))).toEqual({
      action: 'ask',
    });
    expect(decide(local, rules, fromConfig({ webfetch: { 'http://127.0.0.1:8080/': 'allow' } }))).toEqual({
      action: 'allow',
    });
    expect(decide(local, rules, alwaysRules(local))).toEqual({ action: 'allow' });
    expect(decide(local, fromConfig({ webfetch: 'deny' })).action).toBe('deny');
  });
});

describe('messages', () => {
  it('uses OpenCode’s texts word for word', () => {
    const rules: Ruleset = [{ permission: 'bash', pattern: 'rm *', action: 'deny' }];
    expect(deniedMessage(rules)).toBe(
      'The user has specified a rule which prevents you from using this specific tool call. Here are some of the relevant rules [{"permission":"bash","pattern":"rm *","action":"deny"}]',
    );
    expect(REJECTED_MESSAGE).toBe('The user rejected permission to use this specific tool call.');
    expect(correctedMessage('use pnpm instead')).toBe(
      'The user rejected permission to use this specific tool call with the following feedback: use pnpm instead',
    );
  });

  it('shows rules from an action string as OpenCode serializes them', () => {
    expect(deniedMessage(fromConfig({ bash: 'deny' }))).toBe(
      'The user has specified a rule which prevents you from using this specific tool call. Here are some of the relevant rules [{"permission":"bash","action":"deny","pattern":"*"}]',
    );
  });
});

describe('alwaysRules', () => {
  it('allows each of the request’s always patterns for its permission', () => {
    expect(
      alwaysRules({
        permission: 'bash',
        patterns: ['git commit -m x', 'npm run dev'],
        always: ['git commit *', 'npm run dev *'],
      }),
    ).toEqual([
      { permission: 'bash', pattern: 'git commit *', action: 'allow' },
      { permission: 'bash', pattern: 'npm run dev *', action: 'allow' },
    ]);
    expect(alwaysRules({ permission: 'read', patterns: ['/p/.env'], always: [] })).toEqual([]);
  });

  it('makes the next matching request allowed', () => {
    const rules = fromConfig({ bash: 'ask' });
    const request = { permission: 'bash', patterns: ['git commit -m x'], always: ['git commit *'] };
    expect(decide(request, rules).action).toBe('ask');
    const approved = alwaysRules(request);
    expect(decide({ ...request, patterns: ['git commit --amend'] }, rules, approved).action).toBe('allow');
    expect(decide({ ...request, patterns: ['git push'] }, rules, approved).action).toBe('ask');
  });
});

describe('PermissionConfigSchema', () => {
  const messages = (value: unknown) => {
    const result = PermissionConfigSchema.safeParse(value);
    return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  };

  it('accepts an action and the object shapes, keeping key order', () => {
    expect(PermissionConfigSchema.parse('ask')).toBe('ask');
    const config = JSON.parse('{"read": {"*": "allow", "*.env": "ask"}, "*": "deny", "bash": "allow"}');
    const parsed = PermissionConfigSchema.parse(config);
    expect(Object.keys(parsed)).toEqual(['read', '*', 'bash']);
    expect(fromConfig(parsed)).toEqual(fromConfig(config));
  });

  it('names the key at fault and what it must be', () => {
    expect(messages('allw')).toEqual([': must be "allow", "ask" or "deny", or an object of permissions, got "allw"']);
    expect(messages(['allow'])).toEqual([
      ': must be "allow", "ask" or "deny", or an object of permissions, got an array',
    ]);
    expect(messages({ read: 'yes' })).toEqual([
      'read: must be "allow", "ask" or "deny", or an object of {pattern: action}, got "yes"',
    ]);
    expect(messages({ read: { '*': 'allow', '*.env': true }, bash: null })).toEqual([
      'read.*.env: must be "allow", "ask" or "deny", got boolean',
      'bash: must be "allow", "ask" or "deny", or an object of {pattern: action}, got null',
    ]);
  });
});
