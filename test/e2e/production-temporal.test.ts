// Loom on a Temporal that is not its own: a real TLS endpoint (nginx, and a strict TLS listener)
// in front of a dev server with namespaces of its own and none of Loom's search attributes,
// reached through Temporal's own variables and profile files, with mutual TLS or an API key.
import { Client, Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DYNAMIC_CONFIG_FLAGS } from '../../dev-server/server-args.js';
import { RootSessionAttribute } from '../../core/runs/search-attributes.js';
import { createLoomTestEnv, type LoomTestEnv } from '../../testkit/loom/loom-env.js';
import { parseJson, runLoom, type LoomResult } from '../../testkit/loom/run-loom.js';
import { startTlsEndpoint, type TlsEndpoint } from '../../testkit/tls/endpoint.js';
import { freePort } from '../../testkit/network/free-port.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan, type SpanNode } from '../../testkit/otlp/receiver.js';
import { spawnLoom } from '../../testkit/loom/run-loom.js';
import { waitFor } from '../../testkit/wait.js';
import { startWorkerProcess, stopProcess } from '../../testkit/loom/worker-process.js';

let temporal: TestWorkflowEnvironment;
let tls: TlsEndpoint;
let env: LoomTestEnv;
let behind: Connection;

beforeAll(async () => {
  temporal = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: inject('temporalBinary') },
      extraArgs: [...DYNAMIC_CONFIG_FLAGS, '--namespace', 'loom-mtls', '--namespace', 'loom-cloud'],
      log: { format: 'pretty', level: 'error' },
    },
  });
  [tls, env] = await Promise.all([
    startTlsEndpoint(temporal.address),
    createLoomTestEnv({
      address: temporal.address,
      files: {
        'notes.md': 'remember the milk\n',
        'loom.json': JSON.stringify({ permission: { bash: { '*': 'ask' } } }),
      },
    }),
  ]);
  behind = await Connection.connect({ address: temporal.address });
});
afterAll(async () => {
  await behind?.close();
  await env?.close();
  await tls?.stop();
  await temporal?.teardown();
});

/** The variables a person sets for a cluster with mutual TLS, as Temporal's CLI reads them. */
const mtls = (): NodeJS.ProcessEnv => ({
  TEMPORAL_ADDRESS: tls.mtlsAddress,
  TEMPORAL_NAMESPACE: 'loom-mtls',
  TEMPORAL_TLS_CLIENT_CERT_PATH: tls.files.clientCert,
  TEMPORAL_TLS_CLIENT_KEY_PATH: tls.files.clientKey,
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: tls.files.ca,
  TEMPORAL_TLS_SERVER_NAME: tls.serverName,
});

/** …and for Temporal Cloud with an API key (here behind the test's own CA). */
const apiKey = (): NodeJS.ProcessEnv => ({
  TEMPORAL_ADDRESS: tls.apiKeyAddress,
  TEMPORAL_NAMESPACE: 'loom-cloud',
  TEMPORAL_API_KEY: tls.apiKey,
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: tls.files.ca,
});

/** The test env without its plaintext TEMPORAL_ADDRESS: only what `vars` names. */
function cliEnv(vars: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { TEMPORAL_ADDRESS: _plaintext, ...rest } = env.env;
  return { ...rest, NO_COLOR: '1', ...vars };
}

const loom = (args: string[], vars: NodeJS.ProcessEnv) => runLoom(args, { env: cliEnv(vars), cwd: env.project });

/** Secrets must not show up anywhere a person or a log reads. */
function expectNoSecrets(...texts: string[]): void {
  const key = readFileSync(tls.files.clientKey, 'utf8').split('\n')[1]!;
  for (const text of texts) {
    expect(text).not.toContain(tls.apiKey);
    expect(text).not.toContain(key);
  }
}

const sessionOf = (result: LoomResult) => /(ses_\w+) · (?:completed|failed)/.exec(result.stderr)?.[1];

async function describeRun(namespace: string, workflowId: string) {
  return new Client({ connection: behind, namespace }).workflow.getHandle(workflowId).describe();
}

describe('a cluster with mutual TLS', () => {
  it("runs a session through Temporal's TLS variables, adding Loom's search attributes to the namespace", async () => {
    env.model.setScript([{ when: { lastUser: 'hello over mTLS' }, reply: { text: 'hi from behind TLS' } }]);
    const run = await loom(['run', '-m', 'scripted/test-model', 'hello over mTLS'], mtls());
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('hi from behind TLS');
    expect(run.stderr).toContain(
      "Added Loom's search attributes to namespace loom-mtls: LoomAgent, LoomRootSession, LoomParentSession, LoomWaiting.",
    );
    const sessionId = sessionOf(run)!;
    expect((await describeRun('loom-mtls', sessionId)).typedSearchAttributes.get(RootSessionAttribute)).toBe(sessionId);

    const status = parseJson(await loom(['status', '--json'], mtls()));
    expect(status.temporal).toMatchObject({
      address: tls.mtlsAddress,
      namespace: 'loom-mtls',
      embedded: false,
      tls: true,
      auth: 'client certificate',
      state: 'running',
      searchAttributes: { state: 'present' },
      sources: {
        address: 'TEMPORAL_ADDRESS',
        namespace: 'TEMPORAL_NAMESPACE',
        clientCert: 'TEMPORAL_TLS_CLIENT_CERT_PATH',
        serverCa: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
      },
    });
    expect(status.temporal.serverVersion).toMatch(/^\d+\.\d+/);
    expect(status.sandbox).toMatchObject({ ok: true, bwrap: 'bwrap' });
    expectNoSecrets(run.stdout, run.stderr, JSON.stringify(status));
  });

  it('runs one through a profile of a TOML file, and `loom status` says where each setting came from', async () => {
    const file = join(env.dataDir, 'temporal.toml');
    writeFileSync(
      file,
      [
        '[profile.prod]',
        `address = "${tls.mtlsAddress}"`,
        'namespace = "loom-mtls"',
        '[profile.prod.tls]',
        `client_cert_path = "${tls.files.clientCert}"`,
        `client_key_path = "${tls.files.clientKey}"`,
        `server_ca_cert_path = "${tls.files.ca}"`,
        `server_name = "${tls.serverName}"`,
      ].join('\n'),
    );
    const profile = { TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'prod' };
    env.model.setScript([{ when: { lastUser: 'hello by profile' }, reply: { text: 'profile works' } }]);
    const run = await loom(['run', '-m', 'scripted/test-model', 'hello by profile'], profile);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('profile works');
    const status = await loom(['status'], profile);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`Temporal      ${tls.mtlsAddress} (address in profile "prod" of ${file})`);
    expect(status.stdout).toContain(`profile       "prod" of ${file}`);
    expect(status.stdout).toContain('namespace     loom-mtls (namespace in profile "prod")');
    expect(status.stdout).toContain('auth          client certificate (tls.client_cert_path in profile "prod")');
    expect(status.stdout).toContain('search attrs  present');
    expect(status.stdout).toContain('UI            http://localhost:8233/namespaces/loom-mtls/workflows');
    expect(status.stdout).toContain('sandbox       bubblewrap (bwrap)');
    // Where bubblewrap is missing, status says so and how to fix it.
    const without = await loom(['status'], { ...profile, LOOM_BWRAP: '/nonexistent/bwrap' });
    expect(without.stdout).toContain(
      'sandbox       unavailable: bubblewrap (/nonexistent/bwrap) is not installed; to fix it, install it (Debian, Ubuntu: apt-get install bubblewrap',
    );
  });
});

describe('Temporal Cloud with an API key', () => {
  it('runs a subagent tree on a namespace whose search attributes the key may not add, saying once how to add them', async () => {
    env.model.setScript([
      {
        when: { lastUser: 'delegate it', lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Read notes', prompt: 'Read notes.md.', subagent_type: 'explore' } },
          ],
        },
      },
      {
        when: { lastUser: 'Read notes.md.', lastRole: 'user' },
        reply: { toolCalls: [{ name: 'read', args: { filePath: 'notes.md' } }] },
      },
      { when: { lastUser: 'Read notes.md.', lastRole: 'tool' }, reply: { text: 'It says: remember the milk.' } },
      { when: { lastUser: 'delegate it', lastRole: 'tool' }, reply: { text: 'The notes say to remember the milk.' } },
    ]);
    const first = await loom(['run', '-m', 'scripted/test-model', 'delegate it'], apiKey());
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('The notes say to remember the milk.');
    expect(first.stderr).toContain(
      'warning: Temporal at ' +
        tls.apiKeyAddress +
        ", namespace loom-cloud, lacks Loom's search attributes LoomAgent (Keyword), LoomRootSession (Keyword), LoomParentSession (Keyword), LoomWaiting (Bool): these credentials may not add them",
    );
    expect(first.stderr).toContain(
      'tcld namespace search-attributes add --namespace loom-cloud --search-attribute "LoomAgent=Keyword"',
    );
    const sessionId = sessionOf(first)!;
    const root = await describeRun('loom-cloud', sessionId);
    expect(root.typedSearchAttributes.get(RootSessionAttribute)).toBeUndefined();
    const child = (await env.store.children(sessionId))[0]!;
    expect((await describeRun('loom-cloud', child.id)).status.name).toBe('COMPLETED');

    env.model.setScript([{ when: { lastUser: 'again' }, reply: { text: 'again, fine' } }]);
    const second = await loom(['run', '-m', 'scripted/test-model', 'again'], apiKey());
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toContain('search attributes');
    const status = await loom(['status'], apiKey());
    expect(status.stdout).toContain('auth          api key (TEMPORAL_API_KEY)');
    expect(status.stdout).toContain('search attrs  missing');
    expectNoSecrets(first.stdout, first.stderr, second.stderr, status.stdout);
  });
});

describe('refused credentials fail at once, naming the address, the namespace and the credential', () => {
  const pair =
    'TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH (or tls.client_cert_path and tls.client_key_path in the profile)';
  const untrusted = () => ({
    TEMPORAL_TLS_CLIENT_CERT_PATH: tls.files.untrustedClientCert,
    TEMPORAL_TLS_CLIENT_KEY_PATH: tls.files.untrustedClientKey,
  });
  const noCertificate = { TEMPORAL_TLS_CLIENT_CERT_PATH: '', TEMPORAL_TLS_CLIENT_KEY_PATH: '' };
  const cases: [string, () => NodeJS.ProcessEnv, string][] = [
    [
      'a wrong API key',
      () => ({ ...apiKey(), TEMPORAL_API_KEY: 'not-the-key' }),
      'the API key (TEMPORAL_API_KEY) was refused (the server said "Request unauthorized"). Check it, or make a new one.',
    ],
    [
      'no client certificate (refused by the server)',
      () => ({ ...mtls(), ...noCertificate }),
      `the server wants a client certificate (the server said "client certificate required"): set ${pair}.`,
    ],
    [
      'no client certificate (refused in the TLS handshake)',
      () => ({ ...mtls(), ...noCertificate, TEMPORAL_ADDRESS: tls.strictAddress }),
      `the server wants a client certificate (mutual TLS): set ${pair}.`,
    ],
    [
      'an untrusted client certificate (refused by the server)',
      () => ({ ...mtls(), ...untrusted() }),
      'the client certificate (TEMPORAL_TLS_CLIENT_CERT_PATH) was refused (the server said "client certificate not trusted"): it is not signed by a CA the server trusts, or not allowed.',
    ],
    [
      'an untrusted client certificate (refused in the TLS handshake)',
      () => ({ ...mtls(), ...untrusted(), TEMPORAL_ADDRESS: tls.strictAddress }),
      'the server closed the connection during TLS set-up: it probably does not trust the client certificate (TEMPORAL_TLS_CLIENT_CERT_PATH).',
    ],
    [
      'a CA that did not sign the server',
      () => ({ ...mtls(), TEMPORAL_TLS_SERVER_CA_CERT_PATH: tls.files.otherCa }),
      "the server's certificate is not signed by the CA in TEMPORAL_TLS_SERVER_CA_CERT_PATH.",
    ],
    [
      'a server name the certificate does not have',
      () => ({ ...mtls(), TEMPORAL_TLS_SERVER_NAME: 'other.loom.test' }),
      "the server's certificate is not for other.loom.test (TEMPORAL_TLS_SERVER_NAME) but for temporal.loom.test: set TEMPORAL_TLS_SERVER_NAME to the name in its certificate.",
    ],
  ];

  // Each is a command that fails on its own: they run side by side.
  it.concurrent.each(cases)('%s', async (_, vars, reason) => {
    const before = (await env.store.listSessions()).length;
    const settings = vars();
    const result = await loom(['run', '-m', 'scripted/test-model', 'never runs'], settings);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      `Error: Cannot use Temporal at ${settings.TEMPORAL_ADDRESS} (TEMPORAL_ADDRESS), namespace ${settings.TEMPORAL_NAMESPACE}: ${reason}`,
    );
    expect((await env.store.listSessions()).length).toBe(before);
    expectNoSecrets(result.stderr);
  });

  it('an unknown namespace, and a worker with a refused key', async () => {
    const namespace = await loom(['run', '-m', 'scripted/test-model', 'never runs'], {
      ...mtls(),
      TEMPORAL_NAMESPACE: 'nope',
    });
    expect(namespace.code).toBe(1);
    expect(namespace.stderr.trim()).toBe(
      `Error: Temporal at ${tls.mtlsAddress} (TEMPORAL_ADDRESS) has no namespace "nope" (TEMPORAL_NAMESPACE). Check the name, or create it.`,
    );
    const worker = await loom(['worker'], { ...apiKey(), TEMPORAL_API_KEY: 'not-the-key' });
    expect(worker.code).toBe(1);
    expect(worker.stderr.trim()).toBe(
      `Error: Cannot use Temporal at ${tls.apiKeyAddress} (TEMPORAL_ADDRESS), namespace loom-cloud: the API key (TEMPORAL_API_KEY) was refused (the server said "Request unauthorized"). Check it, or make a new one.`,
    );
  });
});

describe('settings that cannot work, said before anything starts', () => {
  it('TLS for the embedded dev server, and a profile that does not exist', async () => {
    const embedded = await loom(['run', '-m', 'scripted/test-model', 'x'], {
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: tls.files.ca,
      LOOM_TEMPORAL_PORT: '1',
    });
    expect(embedded.code).toBe(1);
    expect(embedded.stderr.trim()).toBe(
      "Error: TEMPORAL_TLS_SERVER_CA_CERT_PATH is set, but no Temporal server is named (TEMPORAL_ADDRESS, or address in a profile): Loom's embedded dev server takes no TLS, API key or headers. Set TEMPORAL_ADDRESS to the server these settings are for, or unset them.",
    );
    const file = join(env.dataDir, 'temporal.toml');
    const profile = await loom(['status'], { TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: 'staging' });
    expect(profile.code).toBe(1);
    expect(profile.stderr.trim()).toBe(
      `Error: TEMPORAL_PROFILE is "staging", but ${file} (TEMPORAL_CONFIG_FILE) has no such profile; it has "prod".`,
    );
  });

  it('a metrics port that is not one, or is taken', async () => {
    const malformed = await loom(['worker', '--metrics-port', 'metrics'], mtls());
    expect(malformed.code).toBe(2);
    expect(malformed.stderr.trim()).toBe(
      'Error: --metrics-port is "metrics": give a port (9464) or host:port (127.0.0.1:9464).',
    );
    const taken = createServer().listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const port = (taken.address() as AddressInfo).port;
    try {
      const busy = await loom(['worker'], { ...mtls(), LOOM_METRICS_PORT: `127.0.0.1:${port}` });
      expect(busy.code).toBe(1);
      expect(busy.stderr.trim()).toBe(
        `Error: Cannot serve metrics on 127.0.0.1:${port} (LOOM_METRICS_PORT): the port is in use (another worker on this machine?)`,
      );
    } finally {
      taken.close();
    }
  });

  it('traces over a protocol Loom does not send', async () => {
    const result = await loom(['status'], {
      ...mtls(),
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4317',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(
      'Error: OTEL_EXPORTER_OTLP_PROTOCOL is "grpc": Loom sends traces over OTLP/HTTP (http/protobuf or http/json); point OTEL_EXPORTER_OTLP_ENDPOINT at the collector\'s HTTP port (usually 4318).',
    );
  });
});

describe('traces and metrics of a session tree', () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(() => receiver?.stop());

  /**
   * A root that delegates to `general`, whose subagent reads a file and (when `ask`) runs a command a person approves.
   */
  function treeScript(prompt: string, ask: boolean) {
    const child = `Read the notes (${prompt.replace(/\D/g, '')}).`;
    env.model.setScript([
      {
        when: { lastUser: prompt, lastRole: 'user' },
        reply: {
          toolCalls: [
            { name: 'task', args: { description: 'Look at notes', prompt: child, subagent_type: 'general' } },
          ],
        },
      },
      {
        when: { lastUser: child, lastRole: 'user' },
        reply: { toolCalls: [{ name: 'read', args: { filePath: 'notes.md' } }] },
      },
      ...(ask
        ? [
            {
              when: { lastUser: child, lastTool: /remember the milk/ },
              reply: { toolCalls: [{ name: 'bash', args: { command: 'echo checked', description: 'Check' } }] },
            },
          ]
        : []),
      { when: { lastUser: child, lastRole: 'tool' }, reply: { text: 'The notes say: remember the milk.' } },
      { when: { lastUser: prompt, lastRole: 'tool' }, reply: { text: 'Done: milk.' } },
    ]);
  }

  it.each([
    ['mutual TLS', mtls, true],
    ['an API key', apiKey, false],
  ])(
    "through %s: one whole trace from the command down to the subagent's tool call, and the worker's counters moving",
    async (_, vars, ask) => {
      const port = await freePort();
      const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SERVICE_NAME: 'loom-e2e' };
      const settings = { ...vars(), ...otel, LOOM_TASK_QUEUE: `observed-${port}` };
      const worker = await startWorkerProcess(cliEnv(settings), {
        args: ['--metrics-port', `127.0.0.1:${port}`],
        cwd: env.project,
      });
      try {
        expect(worker.output()).toContain(`Prometheus metrics at http://127.0.0.1:${port}/metrics (--metrics-port).`);
        const scrape = async () => (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        const before = await scrape();
        expect(before).toMatch(/^temporal_\w+/m);
        expect(metric(before, 'loom_tool_calls_total', { tool: 'read' })).toBe(0);

        const prompt = `observe via ${port}`;
        treeScript(prompt, ask);
        const run = spawnLoom(['run', '-m', 'scripted/test-model', prompt], {
          env: cliEnv(settings),
          cwd: env.project,
        });
        let stderr = '';
        run.child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        if (ask) {
          await waitFor(() => /loom approve (per_\w+)/.test(stderr), 30_000);
          // While the run waits for a person: the gauges say so, and the counters have moved.
          let during = '';
          await waitForAsync(async () => {
            during = await scrape();
            return (
              metric(during, 'loom_permission_requests_waiting') === 1 && metric(during, 'loom_subagents_running') === 1
            );
          }, 15_000);
          expect(
            metric(during, 'loom_agent_steps_total', { provider: 'scripted', model: 'test-model' }),
          ).toBeGreaterThanOrEqual(3);
          expect(metric(during, 'loom_tool_calls_total', { tool: 'read', outcome: 'completed' })).toBe(1);
          const approved = await loom(['approve', /loom approve (per_\w+)/.exec(stderr)![1]!], settings);
          expect(approved.code, approved.stderr).toBe(0);
        }
        const result = await run.result;
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toContain('Done: milk.');
        const sessionId = sessionOf(result)!;

        const after = await scrape();
        expect(
          metric(after, 'loom_agent_steps_total', { provider: 'scripted', model: 'test-model' }),
        ).toBeGreaterThanOrEqual(ask ? 5 : 4);
        expect(metric(after, 'loom_tool_calls_total', { tool: 'task', outcome: 'completed' })).toBe(1);
        expect(metric(after, 'loom_tool_calls_total', { tool: 'bash', outcome: 'completed' })).toBe(ask ? 1 : 0);
        expect(metric(after, 'loom_tokens_total', { provider: 'scripted', kind: 'output' })).toBeGreaterThan(0);
        expect(metric(after, 'loom_model_cost_usd_count', { provider: 'scripted' })).toBeGreaterThanOrEqual(4);

        // The trace: the command's StartWorkflow span is the root, every span of it was received.
        // The root run's span ends last, with the run: once it is in, the whole trace is.
        const spans = await receiver.waitFor(
          (all) =>
            all.some(
              (span) =>
                span.name === 'RunWorkflow:sessionWorkflow' &&
                span.attributes.temporalWorkflowId === sessionId &&
                inTraceOf(all, sessionId, span),
            ),
          15_000,
        );
        const start = spans.find(
          (span) => span.name === 'StartWorkflow:sessionWorkflow' && span.attributes.temporalWorkflowId === sessionId,
        )!;
        expect(start, receiver.renderTrees()).toBeDefined();
        const roots = receiver.tree(start.traceId);
        expect(
          roots.map((root) => [root.name, root.orphan]),
          receiver.renderTree(start.traceId),
        ).toEqual([['StartWorkflow:sessionWorkflow', false]]);
        const trace = spans.filter((span) => span.traceId === start.traceId);
        const childId = (await env.store.children(sessionId))[0]!.id;
        const read = trace.find((span) => span.name === 'execute_tool read')!;
        expect(pathTo(roots, read)).toEqual([
          'StartWorkflow:sessionWorkflow',
          'RunWorkflow:sessionWorkflow',
          'execute_tool task',
          'StartChildWorkflow:sessionWorkflow',
          'RunWorkflow:sessionWorkflow',
          'StartActivity:runTool',
          'RunActivity:runTool',
          'execute_tool read',
        ]);
        expect(read.attributes).toMatchObject({
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'read',
          'loom.session.id': childId,
          'loom.tool.status': 'completed',
        });
        const task = trace.find((span) => span.name === 'execute_tool task')!;
        expect(task.attributes).toMatchObject({
          'gen_ai.tool.name': 'task',
          'loom.session.id': sessionId,
          'loom.subagent.session.id': childId,
          'loom.subagent.agent': 'general',
        });
        const chats = trace.filter((span) => span.name === 'chat test-model');
        expect(new Set(chats.map((chat) => chat.attributes['gen_ai.conversation.id']))).toEqual(
          new Set([sessionId, childId]),
        );
        for (const chat of chats) {
          expect(chat.attributes).toMatchObject({
            'gen_ai.operation.name': 'chat',
            'gen_ai.provider.name': 'scripted',
            'gen_ai.request.model': 'test-model',
          });
          expect(chat.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
          expect(pathTo(roots, chat).slice(-3)).toEqual([
            'StartActivity:callModel',
            'RunActivity:callModel',
            'chat test-model',
          ]);
        }
        if (ask)
          expect(trace.find((span) => span.name === 'execute_tool bash')?.attributes['loom.tool.status']).toBe(
            'completed',
          );
        expect(start.resource['service.name']).toBe('loom-e2e');
        expectNoSecrets(
          JSON.stringify(trace, (_key, value: unknown) => (typeof value === 'bigint' ? String(value) : value)),
          after,
          worker.output(),
          result.stderr,
        );
      } finally {
        await stopProcess(worker);
      }
    },
  );
});

/** The sum of a metric's samples whose labels include `labels` (0 when there is none). */
function metric(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const has = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((pair) => [pair[1], pair[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => has[key] === value)) sum += Number(match[3]);
  }
  return sum;
}

/** Names from the root down to `span`. */
function pathTo(roots: SpanNode[], span: ReceivedSpan): string[] {
  const walk = (nodes: SpanNode[], path: string[]): string[] | undefined => {
    for (const node of nodes) {
      const here = [...path, node.name];
      if (node.spanId === span.spanId) return here;
      const found = walk(node.children, here);
      if (found) return found;
    }
    return undefined;
  };
  return walk(roots, []) ?? [];
}

/** Whether `span` is in the trace the run of `sessionId` was started in. */
function inTraceOf(spans: ReceivedSpan[], sessionId: string, span: ReceivedSpan): boolean {
  return spans.some(
    (start) =>
      start.name === 'StartWorkflow:sessionWorkflow' &&
      start.attributes.temporalWorkflowId === sessionId &&
      start.traceId === span.traceId,
  );
}

async function waitForAsync(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
