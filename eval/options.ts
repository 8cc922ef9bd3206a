import { parseArgs } from 'node:util';
import { parseModelId } from '../core/models/model-id.js';
import { LOCAL_MODELS } from './local-model/weights.js';
import { selectTasks } from './tasks.js';

export interface EvalOptions {
  /** Keys of `LOCAL_MODELS` (`1.5b`), or `provider/model` from the user's configuration. */
  models: string[];
  tasks: string[];
  repeat: number;
  openCode: boolean;
  /** The agents' sampling temperature (default: the agents' own, else the server's). */
  temperature?: number;
  /**
   * Loom's prompt for the local models: their default (`small`, by their size) unless `full` is asked for, to compare.
   */
  prompt?: 'full' | 'small';
  taskTimeoutMs: number;
  /** Write every result here as JSON. */
  json?: string;
}

export const EVAL_USAGE = `npm run eval -- [--model 1.5b|0.5b|provider/model]… [--tasks id,id] [--repeat N] [--opencode] [--prompt full|small] [--temperature T] [--timeout-minutes N] [--json results.json]

  --model            a local model Loom installs and serves (${Object.keys(LOCAL_MODELS).join(', ')}), or any
                     provider/model your Loom configuration reaches; repeat the flag for several (default 1.5b)
  --tasks            only these tasks (default: all)
  --repeat           runs of each task (default 1)
  --opencode         run OpenCode on the same tasks and models, side by side (local models only)
  --prompt           Loom's prompt for the local models: small (their default) or full, to compare
  --temperature      the agents' sampling temperature, for Loom and OpenCode alike (default: the server's)
  --timeout-minutes  a task running longer is cancelled and fails (default 10)
  --json             write every run's result to this file`;

export function parseEvalOptions(argv: string[]): EvalOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      model: { type: 'string', multiple: true },
      tasks: { type: 'string' },
      repeat: { type: 'string' },
      opencode: { type: 'boolean' },
      prompt: { type: 'string' },
      temperature: { type: 'string' },
      'timeout-minutes': { type: 'string' },
      json: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(EVAL_USAGE);
    process.exit(0);
  }
  const models = values.model ?? ['1.5b'];
  for (const model of models) {
    if (Object.hasOwn(LOCAL_MODELS, model)) continue;
    try {
      parseModelId(model);
    } catch {
      throw new Error(
        `--model ${model}: name a local model (${Object.keys(LOCAL_MODELS).join(', ')}) or a provider/model`,
      );
    }
  }
  if (values.prompt !== undefined && values.prompt !== 'full' && values.prompt !== 'small')
    throw new Error(`--prompt must be full or small, not "${values.prompt}"`);
  const temperature = values.temperature === undefined ? undefined : Number(values.temperature);
  if (temperature !== undefined && !(temperature >= 0 && temperature <= 2))
    throw new Error(`--temperature must be a number from 0 to 2, not "${values.temperature}"`);
  return {
    models,
    ...(temperature === undefined ? {} : { temperature }),
    ...(values.prompt ? { prompt: values.prompt } : {}),
    // Named tasks are checked here, so an unknown one is a usage error, not a crash.
    tasks: selectTasks(
      values.tasks
        ? values.tasks
            .split(',')
            .map((id) => id.trim())
            .filter(Boolean)
        : [],
    ).map((task) => task.id),
    repeat: positive('--repeat', values.repeat ?? '1'),
    openCode: values.opencode ?? false,
    taskTimeoutMs: positive('--timeout-minutes', values['timeout-minutes'] ?? '10') * 60_000,
    json: values.json,
  };
}

function positive(flag: string, value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new Error(`${flag} must be a whole number of at least 1, not "${value}"`);
  return number;
}
