import { spawn } from 'node:child_process';
import { applyArguments, shellSubstitutions } from '../../core/config/command-template.js';
import type { CommandConfig, LoomConfig } from '../../core/config/config.js';
import { dataDir, refusedConfigDir } from '../process/paths.js';
import { moveCreatedConfig } from '../sandbox/config-guard.js';
import { agentSandbox, confine, type Confinement } from '../sandbox/process-sandbox.js';
import { killGroup, type Launch } from '../tools/shell/process-group.js';
import { toolEnvironment } from '../tools/shell/tool-env.js';
import { errorMessage } from '../../core/text/error-message.js';

const SHELL_TIMEOUT_MS = 30_000;

export interface ExpandedCommand {
  name: string;
  prompt: string;
  agent?: string;
  model?: string;
  subtask?: boolean;
  description?: string;
}

interface ShellOptions {
  directory: string;
  /** The worker's environment; the commands get it as a tool environment (`toolEnvironment`). */
  env: NodeJS.ProcessEnv;
  /** The project's configuration: its providers' keys are hidden, its `shell_env` applied. */
  config: LoomConfig;
  signal?: AbortSignal;
  /**
   * The session whose command it is (its sandbox's `/tmp` is the
   * session's), the agent that runs it, and Loom's data folder.
   */
  sessionId?: string;
  agent?: string;
  dataDir?: string;
}

/**
 * Expands a command: arguments first (so they can reach the shell), then every !`cmd` runs (in
 * parallel, with bash, in the project directory, 30 s timeout each), its stdout replacing its
 * occurrence; a failure or a non-zero exit becomes `Error executing command: <message or stderr>`.
 * The result is trimmed. A cancellation stops the commands and rejects with the signal's reason.
 */
export async function expandCommand(
  name: string,
  command: CommandConfig,
  args: string,
  options: ShellOptions,
): Promise<ExpandedCommand> {
  const text = applyArguments(command.template, args);
  const substitutions = shellSubstitutions(text);
  const env = toolEnvironment(options.env, options.config);
  const confinement: Confinement & { refused?: string } = substitutions.length
    ? await confined(options).catch((error: unknown) => ({
        refused: errorMessage(error),
      }))
    : {};
  const shell = { ...options, env, launch: confinement.sandbox };
  const outputs = await Promise.all(
    substitutions.map(({ command: line }) =>
      confinement.refused ? `Error executing command: ${confinement.refused}` : runSubstitution(line, shell),
    ),
  ).finally(async () => {
    await confinement.sandbox?.close();
    // Commands may not change Loom's configuration: what a shell line created of it is moved out.
    if (confinement.sandbox)
      await moveCreatedConfig(
        confinement.sandbox.policy.config,
        refusedConfigDir(options.dataDir ?? dataDir(options.env), options.sessionId ?? 'commands', `command-${name}`),
      );
  });
  let prompt = '';
  let from = 0;
  substitutions.forEach(({ start, end }, index) => {
    prompt += text.slice(from, start) + outputs[index];
    from = end;
  });
  prompt = (prompt + text.slice(from)).trim();

  const expanded: ExpandedCommand = { name, prompt };
  if (command.agent !== undefined) expanded.agent = command.agent;
  if (command.model !== undefined) expanded.model = command.model;
  if (command.subtask !== undefined) expanded.subtask = command.subtask;
  if (command.description !== undefined) expanded.description = command.description;
  return expanded;
}

/** The sandbox of a command's shell lines: the project's, with the agent's over it. */
function confined(options: ShellOptions): Promise<Confinement> {
  return confine(agentSandbox(options.config, options.agent), {
    workspace: options.directory,
    dataDir: options.dataDir ?? dataDir(options.env),
    cwd: options.directory,
    env: options.env,
    sessionId: options.sessionId ?? 'commands',
    what: 'A shell line of a command',
  });
}

/** The command's stdout, or `Error executing command: …`; rejects only when cancelled. */
async function runSubstitution(line: string, options: ShellOptions & { launch?: Launch }): Promise<string> {
  options.signal?.throwIfAborted();
  const result = await runBash(line, options).catch((error: unknown) => ({
    error: errorMessage(error),
  }));
  options.signal?.throwIfAborted();
  return 'error' in result ? `Error executing command: ${result.error}` : result.stdout;
}

/**
 * Runs one command in its own process group, so a timeout or a cancellation stops everything it
 * started. Resolves with its stdout, or rejects with what went wrong.
 */
function runBash(
  line: string,
  { directory, env, signal, launch }: ShellOptions & { launch?: Launch },
): Promise<{ stdout: string }> {
  return new Promise((resolve, reject) => {
    const [program, ...args] = [...(launch?.launcher ?? []), 'bash', '-c', (launch?.preamble ?? '') + line];
    const child = spawn(program, args, {
      cwd: directory,
      env: launch ? { ...env, ...launch.env } : env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));

    let stoppedBy: 'timeout' | 'abort' | undefined;
    const stop = (reason: 'timeout' | 'abort') => {
      if (stoppedBy || child.pid === undefined) return;
      stoppedBy = reason;
      // Something that left the group may still hold the pipes; stop waiting for it.
      void killGroup(child.pid).finally(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      });
    };
    const timer = setTimeout(() => stop('timeout'), SHELL_TIMEOUT_MS);
    const onAbort = () => stop('abort');
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };

    child.once('error', (error) => {
      done();
      reject(new Error(`Could not run \`${line}\` in ${directory}: ${error.message}`));
    });
    child.once('close', (code, exitSignal) => {
      done();
      if (stoppedBy === 'timeout') reject(new Error(`\`${line}\` timed out after ${SHELL_TIMEOUT_MS / 1000} s`));
      else if (stoppedBy === 'abort') reject(new Error(`\`${line}\` was cancelled`));
      else if (code === 0) resolve({ stdout });
      else
        reject(
          new Error(
            stderr.trim() || `\`${line}\` ${exitSignal ? `was killed by ${exitSignal}` : `exited with code ${code}`}`,
          ),
        );
    });
  });
}
