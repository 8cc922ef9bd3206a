import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { findRipgrep } from '../activities/tools/search/ripgrep.js';
import { installOpenCode } from '../testkit/install/opencode.js';
import type { BenchEnv } from './harness.js';

/** OpenCode ready to run beside Loom: its binary, a copy of the bench's project, and its environment. */
export interface OpenCodeSetup {
  binary: string;
  /** The temporary folder holding the project, OpenCode's HOME and its config; the caller removes it. */
  root: string;
  project: string;
  env: NodeJS.ProcessEnv;
}

/**
 * OpenCode (installed on first use) on the bench's scripted model as `scripted/test-model`, in a
 * git copy of the bench's project, with a HOME of its own; a reason when it cannot be installed.
 */
export async function prepareOpenCode(bench: BenchEnv): Promise<OpenCodeSetup | { reason: string }> {
  const installed = installOpenCode(bench.processEnv);
  if ('reason' in installed) return installed;
  const root = mkdtempSync(join(tmpdir(), 'loom-bench-peer-'));
  const project = join(root, 'project');
  cpSync(bench.project, project, { recursive: true });
  execFileSync('git', ['init', '-q'], { cwd: project });
  const rg = await findRipgrep(bench.processEnv);
  const config = join(root, 'opencode.json');
  writeFileSync(
    config,
    JSON.stringify({
      autoupdate: false,
      share: 'disabled',
      model: 'scripted/test-model',
      provider: {
        scripted: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Scripted',
          options: { baseURL: bench.model.url, apiKey: 'bench' },
          models: { 'test-model': { name: 'test' } },
        },
      },
    }),
  );
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: join(root, 'home'),
    // OpenCode takes its project from PWD over its working directory: without this it works in the caller's folder.
    PWD: project,
    OPENCODE_CONFIG: config,
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    PATH: `${rg ? `${dirname(rg)}:` : ''}${process.env.PATH}`,
  };
  return { binary: installed.binary, root, project, env };
}

/** Runs an `opencode` command to its end (its stdin closed: `opencode run` waits on an open one); its stdout. */
export function openCodeOutput(setup: OpenCodeSetup, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(setup.binary, args, { cwd: setup.project, env: setup.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve(stdout)
        : reject(new Error(`opencode ${args[0]} exited with ${code}:\n${stderr.slice(-2000)}`)),
    );
  });
}
