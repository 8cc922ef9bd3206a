import pc from 'picocolors';
import { LOOM_VERSION } from '../../activities/process/package-root.js';
import { storeFile } from '../../activities/process/paths.js';
import type { ClientContext } from '../context.js';
import { missingAttributesNotice } from '../temporal/search-attributes.js';
import { sandboxAvailability } from '../../activities/sandbox/availability.js';
import { temporalStatus, type DeploymentStatus, type QueueWorkers, type TemporalStatus } from '../temporal/status.js';
import { tracingWanted } from '../../worker/tracing/wanted.js';
import { filesForPerson, reviewConfig } from '../services/config-review.js';
import { recordedFiles } from '../../activities/config/files.js';
import { configLayers } from '../../activities/config/load.js';
import { findRules, shownUrl } from '../../activities/config/rules.js';

interface StoreStatus {
  kind: 'SQLite' | 'PostgreSQL';
  /** The file, or the URL without its password. */
  location: string;
  source: string;
}

/**
 * `loom status`: which Temporal (address, namespace, TLS, auth, and where each setting came from),
 * what it answered, which workers poll Loom's task queues, which store, and the versions. Exits 1
 * when the Temporal it names refuses or does not answer.
 */
export async function statusCommand(context: ClientContext, options: { json?: boolean }): Promise<number> {
  const target = await context.target();
  const temporal = await temporalStatus(target, {
    env: context.env,
    taskQueue: context.settings.taskQueue,
    hostId: context.hostId,
  });
  const store = storeStatus(context);
  const sandbox = await sandboxAvailability(context.env);
  const directory = process.cwd();
  // One review for both lines: the rules are read from the config files a person's run would use.
  const review = await reviewConfig(context.store, directory, context.env).catch((error: Error) => error);
  const config = configLine(directory, review);
  const rules = rulesLine(directory, context.env, review);
  if (options.json) {
    const traces = tracesOf(context.env);
    process.stdout.write(
      `${JSON.stringify({ loom: { version: LOOM_VERSION }, temporal, traces, store, sandbox, config: config.json, rules: rules.json, taskQueue: context.settings.taskQueue })}\n`,
    );
  } else {
    const lines = [
      ...temporalLines(temporal, target),
      `${label('traces')}${tracesLine(context.env)}`,
      `${label('sandbox')}${sandbox.ok ? `bubblewrap (${sandbox.bwrap})` : `${pc.yellow('unavailable')}: ${sandbox.reason}; to fix it, ${sandbox.remedy}`}`,
      ...storeLines(store),
      `${label('config')}${config.line}`,
      `${label('rules')}${rules.line}`,
      `${label('Loom')}${LOOM_VERSION} · task queue "${context.settings.taskQueue}"`,
    ];
    // The profile's line names its file once; the settings it holds say only which key.
    const profile = temporal.profile;
    const shown = profile
      ? lines.map((line, i) =>
          line.includes('profile       ') || i === 0 ? line : line.replaceAll(` of ${profile.file}`, ''),
        )
      : lines;
    process.stdout.write(`${shown.join('\n')}\n`);
  }
  return temporal.state === 'refused' ? 1 : 0;
}

function temporalLines(status: TemporalStatus, target: Parameters<typeof missingAttributesNotice>[0]): string[] {
  const { sources } = status;
  const lines = [
    `${label('Temporal')}${status.address} (${sources.address})`,
    `${label('namespace')}${status.namespace} (${sources.namespace})`,
  ];
  if (status.profile) lines.push(`${label('profile')}"${status.profile.name}" of ${status.profile.file}`);
  const tlsFacts = [
    sources.serverCa ? `server CA ${sources.serverCa}` : status.tls ? "the system's CAs" : undefined,
    sources.serverName ? `server name (${sources.serverName})` : undefined,
  ].filter(Boolean);
  lines.push(
    `${label('TLS')}${status.tls ? 'on' : 'off'}${sources.tls ? ` (${sources.tls})` : ''}${tlsFacts.length ? ` · ${tlsFacts.join(' · ')}` : ''}`,
  );
  const authSource =
    status.auth === 'api key' ? sources.apiKey : status.auth === 'client certificate' ? sources.clientCert : undefined;
  lines.push(`${label('auth')}${status.auth}${authSource ? ` (${authSource})` : ''}`);
  if (sources.metadata) lines.push(`${label('headers')}${sources.metadata.join(', ')}`);
  if (status.ui) lines.push(`${label('UI')}${status.ui}/namespaces/${encodeURIComponent(status.namespace)}/workflows`);
  if (status.state === 'not running') {
    lines.push(`${label('server')}not running (the next \`loom run\` starts it)`);
    return lines;
  }
  if (status.state === 'refused') {
    lines.push(`${label('server')}${pc.red(status.error ?? 'refused')}`);
    return lines;
  }
  lines.push(`${label('server')}${status.serverVersion ? `Temporal ${status.serverVersion}` : 'answers'}`);
  const attributes = status.searchAttributes;
  if (attributes?.state === 'missing')
    lines.push(
      `${label('search attrs')}${pc.yellow('missing')}\n${indent(missingAttributesNotice(target, attributes))}`,
    );
  else if (attributes) lines.push(`${label('search attrs')}present`);
  if (status.deployment) lines.push(`${label('deployment')}${deploymentLine(status.deployment)}`);
  for (const queue of status.workers ?? [])
    lines.push(`${label(queue.kind === 'workflow' ? 'workers' : '')}${workerLine(queue)}`);
  return lines;
}

/** Where traces go: the OTLP endpoint, the variable that names it and the service name; undefined when off. */
function tracesOf(env: NodeJS.ProcessEnv): { endpoint: string; source: string; service: string } | undefined {
  if (!tracingWanted(env)) return undefined;
  const source = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
    ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
    : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  return { endpoint: env[source]!, source, service: env.OTEL_SERVICE_NAME || 'loom' };
}

function tracesLine(env: NodeJS.ProcessEnv): string {
  const traces = tracesOf(env);
  return traces
    ? `OTLP ${traces.endpoint} (${traces.source}), service ${traces.service}`
    : 'off (set OTEL_EXPORTER_OTLP_ENDPOINT to send them)';
}

/** The current build, the others still needed (draining) or ready (inactive), and this installation's. */
function deploymentLine(deployment: DeploymentStatus): string {
  if (deployment.versioning === 'off') return 'off: workers take any run (LOOM_WORKER_VERSIONING=off)';
  const { name, thisBuild, current, versions } = deployment;
  const others = versions.filter(
    (version) => version.buildId !== current && ['draining', 'inactive'].includes(version.status),
  );
  const parts = [
    current ? `"${name}", build ${current} current` : `"${name}", no build current yet`,
    ...others.map((version) => `${version.buildId} ${version.status}`),
    `this installation: ${thisBuild}`,
  ];
  return parts.join(' · ');
}

function workerLine(queue: QueueWorkers): string {
  const what = `"${queue.taskQueue}" ${queue.kind === 'workflow' ? 'runs' : 'activities'}`;
  if (queue.pollers.length === 0)
    return `${what}: none${queue.kind === 'workflow' ? ' (`loom worker` starts one; `loom run` runs one in the command)' : ''}`;
  return `${what}: ${queue.pollers.map((poller) => (poller.machine ? `${poller.machine} pid ${poller.pid}` : poller.identity)).join(', ')}`;
}

function storeStatus(context: ClientContext): StoreStatus {
  const { storeUrl, storeUrlSource, dataDir } = context.settings;
  if (!storeUrl)
    return {
      kind: 'SQLite',
      location: storeFile(dataDir),
      source: context.env.LOOM_DATA_DIR ? 'LOOM_DATA_DIR' : 'the default data folder',
    };
  return { kind: 'PostgreSQL', location: withoutPassword(storeUrl), source: storeUrlSource ?? 'LOOM_STORE_URL' };
}

type Review = Awaited<ReturnType<typeof reviewConfig>> | Error;

/** Whether this folder's config files wait for a person (a change made during an agent's work). */
function configLine(directory: string, review: Review): { line: string; json: unknown } {
  if (review instanceof Error)
    return { line: pc.yellow(`not read: ${review.message}`), json: { directory, error: review.message } };
  const { waiting } = review;
  if (!waiting) return { line: `${directory}: as the files say`, json: { directory, waiting: null } };
  const who = waiting.sessionId ? ` during ${waiting.sessionId}` : '';
  return {
    line: `${pc.yellow(`${waiting.files.length} changed${who}, not used`)}: review with \`loom config\`, use with \`loom config trust\``,
    json: { directory, waiting: { files: waiting.files, sessionId: waiting.sessionId ?? null } },
  };
}

/** The rules files a run started in this folder would give its agents (AGENTS.md, `instructions`). */
function rulesLine(directory: string, env: NodeJS.ProcessEnv, review: Review): { line: string; json: unknown } {
  try {
    const project = review instanceof Error ? undefined : recordedFiles(filesForPerson(review.standing));
    const layers = configLayers(directory, env, { markdown: false, ...(project ? { project } : {}) });
    const { rules, urls, problems } = findRules(directory, env, layers);
    const named = [
      ...rules.map((rule) => rule.source),
      ...urls.map((url) => `${shownUrl(url.url)} (fetched when a run starts)`),
    ];
    const missing = problems.map((problem) => pc.yellow(`skipped: ${problem}`));
    return {
      line: [
        named.length ? named.join(', ') : 'none (no AGENTS.md up to the repository root, no `instructions`)',
        ...missing,
      ].join('\n              '),
      json: { files: rules.map((rule) => rule.source), urls: urls.map((url) => shownUrl(url.url)), problems },
    };
  } catch (error) {
    return { line: pc.yellow(`not read: ${(error as Error).message}`), json: { error: (error as Error).message } };
  }
}

function storeLines(store: StoreStatus): string[] {
  return [`${label('Store')}${store.kind} ${store.location} (${store.source})`];
}

function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//***@');
  }
}

function label(name: string): string {
  return name ? pc.dim(name.padEnd(14)) : ' '.repeat(14);
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `${' '.repeat(14)}${line}`)
    .join('\n');
}
