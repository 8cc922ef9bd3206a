import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheDir } from '../activities/process/paths.js';
import { installOpenCode } from '../testkit/install/opencode.js';
import { startMeasuringTemporal } from '../testkit/temporal/measuring-temporal.js';
import { installSandboxTools } from '../testkit/install/sandbox-tools.js';
import { installQuietRuntime } from '../worker/runtime.js';
import { llamaServer } from './local-model/llama-cpp.js';
import { LOCAL_CONTEXT, startLlamaServer, type RunningModel } from './local-model/llama-server.js';
import { LOCAL_MODELS, modelWeights } from './local-model/weights.js';
import { EVAL_USAGE, parseEvalOptions, type EvalOptions } from './options.js';
import { evalTable, failures } from './report.js';
import type { RunResult } from './result.js';
import { runLoomEval } from './run-loom.js';
import { runOpenCodeEval } from './run-opencode.js';
import { selectTasks } from './tasks.js';
import { prepareWorkspaces } from './workspaces.js';

/** What no one can answer during a batch: asked, it would wait for ever, so it is refused. */
const NOBODY_TO_ASK = { external_directory: 'deny', doom_loop: 'deny', webfetch: 'deny' };
/** A small model that loses its way stops here rather than at the time limit. */
const STEPS = 15;
const log = (line: string) => console.log(line);
/** The agents' settings for the eval: the step limit, and the temperature when one is asked for. */
const agentSettings = (temperature?: number) =>
  Object.fromEntries(
    ['build', 'general', 'explore'].map((name) => [
      name,
      { steps: STEPS, ...(temperature === undefined ? {} : { temperature }) },
    ]),
  );

async function main(): Promise<void> {
  let options: EvalOptions;
  try {
    options = parseEvalOptions(process.argv.slice(2));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${EVAL_USAGE}`);
    process.exit(2);
  }
  const tasks = selectTasks(options.tasks);
  installQuietRuntime();
  // Agents' bash calls run in the sandbox, as they would for a user: bubblewrap is installed if missing.
  installSandboxTools();
  const root = mkdtempSync(join(tmpdir(), 'loom-eval-'));
  log(
    `Loom eval: ${tasks.length} tasks × ${options.repeat} on ${options.models.join(', ')}${options.openCode ? ', with OpenCode' : ''} · folders in ${root}`,
  );
  const temporal = await startMeasuringTemporal(log);
  const results: RunResult[] = [];
  try {
    // Folders are numbered, not named for the model: a small model copies pieces of paths it sees.
    for (const [index, modelKey] of options.models.entries())
      results.push(...(await evalModel(modelKey, options, join(root, String(index + 1)), temporal.processEnv)));
  } finally {
    await temporal.close();
  }
  log(`\n${evalTable(results)}`);
  const failed = failures(results);
  if (failed.length > 0) log(`\nWhy runs failed:\n${failed.join('\n')}`);
  log(`\nFor a README:\n\n${evalTable(results, true)}`);
  if (options.json) writeFileSync(options.json, JSON.stringify(results, null, 2));
}

async function evalModel(
  modelKey: string,
  options: EvalOptions,
  folder: string,
  temporalEnv: NodeJS.ProcessEnv,
): Promise<RunResult[]> {
  const tasks = selectTasks(options.tasks);
  const local = Object.hasOwn(LOCAL_MODELS, modelKey) ? LOCAL_MODELS[modelKey] : undefined;
  let server: RunningModel | undefined;
  if (local) {
    const cache = join(cacheDir(), 'eval');
    const binary = llamaServer(cache, log);
    const weights = modelWeights(local, cache, log);
    log(`starting llama-server with ${local.name}`);
    server = await startLlamaServer(binary, weights, local.name);
  }
  const model = local ? `local/${local.name}` : modelKey;
  const served =
    local && server
      ? { modelID: local.name, baseURL: server.baseURL, ...(options.prompt ? { prompt: options.prompt } : {}) }
      : undefined;
  const results: RunResult[] = [];
  try {
    const loomFolder = join(folder, 'loom');
    const runs = prepareWorkspaces(loomFolder, tasks, options.repeat);
    log(`Loom on ${model}: ${runs.length} runs as one batch`);
    results.push(
      ...(await runLoomEval({
        model,
        ...(served?.prompt || options.temperature !== undefined
          ? { label: labelOf(model, served?.prompt, options.temperature) }
          : {}),
        config: {
          ...(served ? { provider: loomProvider(served) } : {}),
          permission: { ...NOBODY_TO_ASK, unsandboxed: 'deny' },
          agent: agentSettings(options.temperature),
        },
        batchFolder: loomFolder,
        dataFolder: join(folder, 'loom-data'),
        runs,
        temporalEnv,
        taskTimeoutMs: options.taskTimeoutMs,
        log,
      })),
    );
    if (options.openCode) results.push(...(await openCodeSide(model, served, options, folder)));
  } finally {
    await server?.stop();
  }
  return results;
}

/** A column's name when the eval changed what the model is given: `local/m (full prompt, temperature 0.2)`. */
function labelOf(model: string, prompt: string | undefined, temperature: number | undefined): string {
  const changes = [prompt && `${prompt} prompt`, temperature !== undefined && `temperature ${temperature}`].filter(
    Boolean,
  );
  return `${model} (${changes.join(', ')})`;
}

/** The local llama-server as a provider of Loom's or OpenCode's configuration (OpenCode needs the package named). */
function localProvider(served: LocalServed, extra: Record<string, unknown> = {}) {
  return {
    local: {
      ...extra,
      name: 'llama.cpp',
      options: { baseURL: served.baseURL, apiKey: 'eval' },
      models: { [served.modelID]: { name: served.modelID, limit: { context: LOCAL_CONTEXT, output: 2_048 } } },
    },
  };
}

/** Loom's provider: OpenCode's, with the prompt variant the eval asked for. */
function loomProvider(served: LocalServed) {
  const provider = localProvider(served);
  if (served.prompt) Object.assign(provider.local.models[served.modelID], { prompt: served.prompt });
  return provider;
}

interface LocalServed {
  modelID: string;
  baseURL: string;
  /** Loom's prompt variant, when the eval sets one. */
  prompt?: 'full' | 'small';
}

async function openCodeSide(
  model: string,
  served: LocalServed | undefined,
  options: EvalOptions,
  folder: string,
): Promise<RunResult[]> {
  if (!served) {
    log('OpenCode runs on the local models only: skipped for a configured provider.');
    return [];
  }
  const installed = installOpenCode(process.env);
  if ('reason' in installed) {
    log(`${installed.reason}: OpenCode is skipped.`);
    return [];
  }
  const openCodeFolder = join(folder, 'opencode');
  mkdirSync(openCodeFolder, { recursive: true });
  const runs = prepareWorkspaces(openCodeFolder, selectTasks(options.tasks), options.repeat);
  log(`OpenCode on ${model}: ${runs.length} runs, one after another`);
  return runOpenCodeEval({
    binary: installed.binary,
    model,
    config: {
      model,
      provider: localProvider(served, { npm: '@ai-sdk/openai-compatible' }),
      permission: NOBODY_TO_ASK,
      agent: agentSettings(options.temperature),
    },
    batchFolder: openCodeFolder,
    dataFolder: join(folder, 'opencode-data'),
    runs,
    taskTimeoutMs: options.taskTimeoutMs,
    log,
  });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
