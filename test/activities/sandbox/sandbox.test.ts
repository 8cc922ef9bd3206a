// The sandbox as bash gets it, through real bubblewrap: what a command may write and read, the
// policy a configuration gives, what the model is told when the sandbox refused something, and
// what happens where bubblewrap cannot start.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  readdirSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explainRefusal } from '../../../activities/sandbox/explain-refusal.js';
import { hostsTheCommandNeeds } from '../../../activities/sandbox/network-wait.js';
import { sandboxPolicy } from '../../../activities/sandbox/policy.js';
import { removeSessionTmpFolder } from '../../../activities/sandbox/tmp-folders.js';
import { unavailableMode } from '../../../activities/sandbox/process-sandbox.js';
import { bash } from '../../../activities/tools/bash.js';
import { ToolError } from '../../../activities/tools/running/tool-handler.js';
import { LoomConfig } from '../../../core/config/config.js';
import { mergeSandboxConfig } from '../../../core/config/sandbox-config.js';
import { createToolContext, type ToolTestContext } from '../../../testkit/model/tool-context.js';

// In /var/tmp: the sandbox's /tmp is private, so paths under /tmp would be out of sight anyway.
let root: string;
let project: string;
let home: string;
let outside: string;
/** A sandbox's /tmp a worker that was killed left behind. */
let leftByKilledWorker: string;
/** A session's /tmp no command used for two days. */
let staleSession: string;
const contexts: ToolTestContext[] = [];

function context(config: LoomConfig = {}, env: NodeJS.ProcessEnv = {}): ToolTestContext {
  const created = createToolContext(project, {
    config,
    env: { ...process.env, HOME: home, ...env },
    sessionId: `ses_sandbox${process.pid}_${contexts.length}`,
  });
  contexts.push(created);
  return created;
}

const run = (command: string, on: ToolTestContext, extra: { workdir?: string; sandbox?: boolean } = {}) =>
  bash({ command, description: 'Probe the sandbox', ...extra }, on);

beforeAll(() => {
  root = realpathSync(mkdtempSync('/var/tmp/loom-sandbox-'));
  project = join(root, 'project');
  home = join(root, 'home');
  outside = join(root, 'outside');
  for (const folder of [project, join(home, '.ssh'), join(home, '.cache'), outside])
    mkdirSync(folder, { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_ed25519'), 'ssh-secret\n');
  writeFileSync(join(home, '.netrc'), 'machine example.com password netrc-secret\n');
  writeFileSync(join(outside, 'readme.txt'), 'readable\n');
  writeFileSync(join(root, '.env.local'), 'TOKEN=ancestor-secret\n');
  writeFileSync(join(root, '.env.example'), 'TOKEN=\n');
  writeFileSync(join(project, '.env'), 'TOKEN=project-env\n');
  symlinkSync(join(home, '.ssh'), join(project, 'keys'));
  const killedWorker = spawnSync('true').pid;
  leftByKilledWorker = join(tmpdir(), 'loom-sandbox', `tmp-${killedWorker}-left`);
  mkdirSync(join(leftByKilledWorker, 'scratch'), { recursive: true });
  staleSession = join(tmpdir(), 'loom-sandbox', `ses_stale${process.pid}`);
  mkdirSync(staleSession, { recursive: true });
  const twoDaysAgo = new Date(Date.now() - 2 * 24 * 60 * 60 * 1000);
  utimesSync(staleSession, twoDaysAgo, twoDaysAgo);
});

afterAll(async () => {
  await Promise.all(contexts.map((created) => created.close()));
  await Promise.all(contexts.map((created) => removeSessionTmpFolder(created.sessionId)));
  rmSync(root, { recursive: true, force: true });
});

describe('a sandboxed bash call', () => {
  it('writes in the project and its own /tmp, and nowhere else', async () => {
    const on = context();
    const result = await run(
      `echo kept > made.txt && echo scratch > /tmp/scratch && cat /tmp/scratch && touch ${outside}/new.txt`,
      on,
    );
    expect(result.output).toMatch(
      /^scratch\ntouch: cannot touch '.*new.txt': Read-only file system\n\nExit code: 1\n\nLoom's sandbox refused/,
    );
    expect(result.output).toContain(`${outside}/new.txt is read-only in the sandbox (writable: ${project}, /tmp)`);
    expect(result.metadata).toMatchObject({
      exit: 1,
      sandboxRefused: true,
      sandboxRefusal: expect.stringContaining(`${outside}/new.txt is read-only in the sandbox`),
    });
    expect(existsSync(join(project, 'made.txt'))).toBe(true);
    expect(existsSync(join(outside, 'new.txt'))).toBe(false);
    // The session's /tmp is kept between its calls, and is no other session's.
    expect((await run('cat /tmp/scratch', on)).output).toBe('scratch');
    expect((await run('cat /tmp/scratch', context())).output).toContain('No such file or directory');
    // No call left a /tmp of its own; what a killed worker left, and a session's unused for a day, are gone.
    const ours = readdirSync(join(tmpdir(), 'loom-sandbox')).filter((name) => name.startsWith(`tmp-${process.pid}-`));
    expect(ours).toEqual([]);
    expect(existsSync(leftByKilledWorker)).toBe(false);
    expect(existsSync(staleSession)).toBe(false);
  });

  it("says that a file of the host's /tmp is not in the sandbox's /tmp", async () => {
    const hostTmp = mkdtempSync('/tmp/loom-host-');
    writeFileSync(join(hostTmp, 'server.mjs'), '');
    try {
      const { output } = await run(`node ${hostTmp}/server.mjs`, context());
      expect(output).toContain('Cannot find module');
      expect(output).toContain(
        `${hostTmp}/server.mjs is in the host's /tmp, which the sandbox does not see: its /tmp is its own`,
      );
      // node names its own run_main in the stack, which is not the hidden /run.
      expect(output).not.toContain('/run is hidden');
    } finally {
      rmSync(hostTmp, { recursive: true, force: true });
    }
  });

  it('reads outside the project, but not the credentials of the home folder, however they are reached', async () => {
    const on = context();
    expect((await run(`cat ${outside}/readme.txt`, on)).output).toBe('readable');
    for (const command of [
      'cat ~/.ssh/id_ed25519',
      'cat keys/id_ed25519',
      'cat ~/.netrc',
      'cat ../.env.local',
      'ls ~/.ssh',
    ]) {
      const { output } = await run(command, on);
      expect(output, command).not.toMatch(/ssh-secret|netrc-secret|ancestor-secret|id_ed25519\n/);
    }
    // The project's own files are the project's, `.env` included; `.env.example` holds no secret by convention.
    expect((await run('cat .env ../.env.example', on)).output).toBe('TOKEN=project-env\nTOKEN=');
  });

  it('cannot take away what hides a path, even where the worker runs as root', async () => {
    // Root's sandbox gets every capability in its user namespace unless bubblewrap drops them: then
    // a command could unmount the empty folder over ~/.ssh and read what is under it.
    const { output } = await run(
      'umount ~/.ssh; umount -l ~/.ssh; cat ~/.ssh/id_ed25519; grep CapEff /proc/self/status',
      context(),
    );
    expect(output).not.toContain('ssh-secret');
    expect(output).toMatch(/^CapEff:\s+0+$/m);
  });

  it('takes write and deny paths from the configuration, and the agent adds to the project', async () => {
    const config: LoomConfig = {
      sandbox: { write: ['~/.cache'], deny: ['../outside'] },
      agent: { build: { sandbox: { write: ['../outside'] } } },
    };
    const on = { ...context(config), agent: 'build' };
    const result = await run(`touch ~/.cache/ok && cat ${outside}/readme.txt; touch ${outside}/by-agent.txt`, on);
    expect(existsSync(join(home, '.cache', 'ok'))).toBe(true);
    expect(result.output).toContain(`${outside} is hidden by the sandbox`);
    expect(result.output).not.toMatch(/^readable/m);
    expect(existsSync(join(outside, 'by-agent.txt'))).toBe(false);
    // An agent's list adds to the project's; a denial stays.
    expect(mergeSandboxConfig(config.sandbox, config.agent!.build.sandbox)).toEqual({
      write: ['~/.cache', '../outside'],
      deny: ['../outside'],
    });
  });

  it('makes the folders a person granted the call writable', async () => {
    const on = context({}, {});
    const command = `cp ${outside}/readme.txt ${outside}/copy.txt`;
    expect((await run(command, on)).output).toContain('Read-only file system');
    const granted = createToolContext(project, { env: { ...process.env, HOME: home }, externalAllowed: true });
    contexts.push(granted);
    expect((await run(command, granted)).output).toBe('(no output)');
    expect(existsSync(join(outside, 'copy.txt'))).toBe(true);
  });

  it("keeps another writable folder's Loom configuration read-only, and moves out what a command creates there", async () => {
    const other = join(root, 'other-project');
    mkdirSync(join(other, '.opencode'), { recursive: true });
    writeFileSync(join(other, 'opencode.json'), '{}\n');
    const on = context({ sandbox: { write: ['../other-project'] } });
    const result = await run(
      `touch ${other}/notes.txt; echo '{"sandbox":{"enabled":false}}' > ${other}/opencode.json; mkdir ${other}/.opencode/plugin; echo x > ${other}/loom.json`,
      on,
    );
    expect(existsSync(join(other, 'notes.txt'))).toBe(true);
    expect(readFileSync(join(other, 'opencode.json'), 'utf8')).toBe('{}\n');
    expect(existsSync(join(other, '.opencode', 'plugin'))).toBe(false);
    expect(existsSync(join(other, 'loom.json'))).toBe(false);
    expect(result.output).toContain(`Loom moved ${join(other, 'loom.json')} out of the project`);
  });

  it('has no network: a host is named as unreachable, with the way to ask for more', async () => {
    const { output } = await run('curl -sS --max-time 5 https://registry.npmjs.org/', context());
    expect(output).toContain('Could not resolve host: registry.npmjs.org');
    expect(output).toContain('registry.npmjs.org cannot be reached: the sandbox has no network (hosts allowed: none)');
    expect(output).toContain('call bash again with the same command and "sandbox": false');
  });

  it('tells a command silent on the network, and the person while it runs, that the sandbox has no network', async () => {
    const on = context();
    // npm retries a registry name that does not resolve for over a minute, printing nothing.
    const result = await bash(
      { command: 'npm view left-pad version', description: 'Ask the registry', timeout: 9_000 },
      on,
    );
    const note = 'the command may be waiting for registry.npmjs.org, which the sandbox cannot reach';
    const entry = '"sandbox":{"network":{"allow":["registry.npmjs.org"]}}';
    expect(result.output).toContain(note);
    expect(result.output).toContain(entry);
    expect(on.updates.some((update) => String(update.metadata?.sandboxNote).includes(entry))).toBe(true);
    expect(result.metadata).toMatchObject({ sandboxRefusal: expect.stringContaining('registry.npmjs.org') });
    // Commands often silent for a while that need no network are not told.
    expect(hostsTheCommandNeeds('npm test && cargo test')).toEqual([]);
    expect(hostsTheCommandNeeds('git clone git@github.com:acme/x.git && pip install -r r.txt')).toEqual([
      'github.com',
      'pypi.org',
      'files.pythonhosted.org',
    ]);
  }, 30_000);

  it('runs unconfined with sandbox false (the permission was asked before), and says so in its metadata', async () => {
    const result = await run('cat ~/.ssh/id_ed25519', context(), { sandbox: false });
    expect(result.output).toBe('ssh-secret');
    expect(result.metadata).toMatchObject({ unsandboxed: true });
  });
});

describe('where bubblewrap cannot start', () => {
  const missing = { LOOM_BWRAP: '/nonexistent/bwrap' };

  it('refuses bash on Linux by default, saying why and how to fix it', async () => {
    const refused = run('touch refused.txt', context({}, missing));
    await expect(refused).rejects.toThrow(ToolError);
    await expect(refused).rejects.toThrow(
      /^bash is refused: Loom's sandbox cannot start on this worker: bubblewrap \(\/nonexistent\/bwrap\) is not installed\. To fix it, install it \(Debian, Ubuntu: apt-get install bubblewrap/,
    );
    expect(existsSync(join(project, 'refused.txt'))).toBe(false);
  });

  it("runs unconfined when configured so, warning on the run's first call only", async () => {
    const on = context({ sandbox: { unavailable: 'unconfined' } }, missing);
    const first = await bash({ command: 'echo one', description: 'd' }, { ...on, runId: 'run-a' });
    expect(first.output).toMatch(
      /^one\n\nWarning: bash ran unconfined \(sandbox.unavailable is "unconfined"\)\. Loom's sandbox cannot start/,
    );
    expect((await bash({ command: 'echo two', description: 'd' }, { ...on, runId: 'run-a' })).output).toBe('two');
    expect((await bash({ command: 'echo three', description: 'd' }, { ...on, runId: 'run-b' })).output).toContain(
      'Warning: bash ran unconfined',
    );
  });

  it('defaults to refusing on Linux and to unconfined elsewhere', () => {
    expect(unavailableMode({}, 'linux')).toBe('refuse');
    expect(unavailableMode({}, 'darwin')).toBe('unconfined');
    expect(unavailableMode({ unavailable: 'unconfined' }, 'linux')).toBe('unconfined');
  });
});

describe('the policy', () => {
  it('hides the defaults that exist, never the workspace or a folder it is in', async () => {
    const policy = await sandboxPolicy(
      { deny: [root] },
      { workspace: project, dataDir: join(root, 'data-missing'), env: { HOME: home } },
    );
    expect(policy.workspace).toBe(project);
    expect(policy.hidden).toEqual(
      expect.arrayContaining([join(home, '.ssh'), join(home, '.netrc'), join(root, '.env.local')]),
    );
    expect(policy.hidden).not.toContain(join(root, '.env.example'));
    expect(policy.hidden).not.toContain(root);
    expect(policy.hidden).not.toContain(join(root, 'data-missing'));
  });

  it('names a configuration mistake by its key', () => {
    const parsed = LoomConfig.safeParse({ sandbox: { network: { allowed: ['x'] }, unavailable: 'maybe' } });
    expect(parsed.success).toBe(false);
    const keys = parsed.error!.issues.map((issue) => issue.path.join('.'));
    expect(keys).toEqual(expect.arrayContaining(['sandbox.network', 'sandbox.unavailable']));
  });
});

describe('explainRefusal', () => {
  const policy = {
    workspace: '/p',
    writable: [],
    shownFromHostTmp: [],
    hidden: ['/home/u/.aws'],
    allowedHosts: [],
    config: { readOnly: ['/p/loom.json', '/p/.opencode'], absent: [] },
  };

  it.each([
    ["OSError: [Errno 30] Read-only file system: '/etc/x'", '/etc/x is read-only in the sandbox'],
    ["Error: EROFS: read-only file system, open '/srv/out.txt'", '/srv/out.txt is read-only in the sandbox'],
    ['cat: /home/u/.aws/credentials: No such file or directory', '/home/u/.aws is hidden by the sandbox'],
    ['getaddrinfo ENOTFOUND api.example.com', 'api.example.com cannot be reached: the sandbox has no network'],
    ['connect ECONNREFUSED 127.0.0.1:5432', 'the sandbox has its own loopback'],
  ])('explains %s', (output, expected) => {
    expect(explainRefusal(output, true, policy, [])).toContain(expected);
  });

  it.each([
    ["sed: couldn't open temporary file /p/.opencode/sedAbc12: Read-only file system", '/p/.opencode/sedAbc12'],
    ["rm: cannot remove 'loom.json': Device or resource busy", '/p/loom.json'],
    ['bash: /p/loom.json: Read-only file system', '/p/loom.json'],
  ])("tells the model Loom's configuration is changed with the write tool, not a command: %s", (output, path) => {
    const said = explainRefusal(output, true, policy, []);
    expect(said).toContain(`${path} is read-only in the sandbox`);
    expect(said).toContain('change it with the write or edit tool');
    expect(said).not.toContain('"sandbox": false');
  });

  it("says when a connection to one of the host's Unix sockets was refused", () => {
    const sockets = { hostSockets: ['/home/u/.docker/desktop/docker.sock', '/p/dev.sock'] };
    const python = 'PermissionError: [Errno 13] Permission denied';
    expect(
      explainRefusal(python, true, policy, [], {
        ...sockets,
        command: 'python3 -c "s = socket.socket(socket.AF_UNIX)"',
      }),
    ).toContain(
      "the sandbox refuses connections to the host's Unix sockets (/home/u/.docker/desktop/docker.sock, /p/dev.sock)",
    );
    expect(
      explainRefusal('socat: connect(5, AF=1 "dev.sock"): Permission denied', true, policy, [], sockets),
    ).toContain('/p/dev.sock is a Unix socket of the host, which the sandbox refuses to connect to');
    expect(explainRefusal('sh: ./run.sh: Permission denied', true, policy, [], sockets)).toBeUndefined();
  });

  it('says nothing for a command that failed for its own reasons, and names what the proxy refused', () => {
    expect(explainRefusal('npm ERR! missing script: test', true, policy, [])).toBeUndefined();
    expect(
      explainRefusal('ok', false, policy, [
        { host: 'evil.example', port: 443, reason: 'the host is not in sandbox.network.allow' },
      ]),
    ).toContain("the sandbox's proxy refused evil.example:443 (the host is not in sandbox.network.allow)");
  });
});
