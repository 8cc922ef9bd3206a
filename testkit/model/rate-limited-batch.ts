import { numberedTasks, runBatch } from '../temporal/batch.js';
import type { LoomTestEnv } from '../loom/loom-env.js';
import { slidingWindow } from './sliding-window.js';

/**
 * A batch of `tasks` one-request tasks against a provider the scripted server rate-limits as
 * `window` says (429s beyond it). The tasks' model calls get one attempt each: a 429 that reached
 * Temporal would fail its task, so every task done means the waiting happened in the requests.
 */
export async function runRateLimitedBatch(
  env: LoomTestEnv,
  options: {
    model: string;
    prefix: string;
    tasks: number;
    concurrency: number;
    window: Parameters<typeof slidingWindow>[0];
  },
) {
  const server = slidingWindow(options.window);
  const pattern = new RegExp(`^${options.prefix} \\d+`);
  env.model.addRules({
    name: options.prefix,
    when: { lastUser: pattern },
    reply: () => {
      const limited = server.arrive();
      return limited
        ? { status: 429, headers: limited, errorMessage: 'Rate limit reached for requests' }
        : { text: 'done' };
    },
  });
  const { batch, handle } = await runBatch(
    env,
    numberedTasks(options.tasks, (i) => `${options.prefix} ${i}: say done.`),
    { concurrency: options.concurrency, model: options.model },
  );
  const result = await handle.result();
  const tasks = await env.store.batchTasks(batch.id);
  const failed = tasks.flatMap((t, i) => (t.outcome.status === 'completed' ? [] : [`task ${i}: ${t.outcome.error}`]));
  return { result, failed, server };
}
