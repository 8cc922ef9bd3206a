import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../testkit/network/free-port.js';
import { stopProcess } from '../../testkit/loom/worker-process.js';

/** A context long enough for a few steps of a small task, small enough for a 1.5B model's cache in little memory. */
export const LOCAL_CONTEXT = 16_384;
const START_TIMEOUT_MS = 300_000;

export interface RunningModel {
  /** The OpenAI-compatible base URL (`…/v1`). */
  baseURL: string;
  stop(): Promise<void>;
}

/**
 * `llama-server` serving one GGUF file under `alias`, with the model's own chat template (`--jinja`,
 * which offers tools in the model's format) and one slot, so a prompt's shared start is reused
 * from one request to the next. Resolves once the model is loaded.
 */
export async function startLlamaServer(binary: string, weights: string, alias: string): Promise<RunningModel> {
  const port = await freePort();
  const args = [
    '-m',
    weights,
    '--alias',
    alias,
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--jinja',
    '-c',
    String(LOCAL_CONTEXT),
    '--parallel',
    '1',
  ];
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output = `${output}${chunk.toString()}`.slice(-20_000)));
  const baseURL = `http://127.0.0.1:${port}/v1`;
  await untilHealthy(`http://127.0.0.1:${port}/health`, child, () => output);
  return { baseURL, stop: () => stopProcess(child) };
}

async function untilHealthy(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`llama-server exited with ${child.exitCode}:\n${output().slice(-3000)}`);
    const healthy = await fetch(url).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) return;
    await sleep(500);
  }
  await stopProcess(child);
  throw new Error(`llama-server was not ready within ${START_TIMEOUT_MS / 1000} s:\n${output().slice(-3000)}`);
}
