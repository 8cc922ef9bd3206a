import { stat } from 'node:fs/promises';
import { constants } from 'node:os';
import type { z } from 'zod';
import { BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_TIMEOUT_MS, type bash as bashSpec } from '../../core/tools/bash.js';
import { agentSandbox, confine, SandboxUnavailableError, type Confinement } from '../sandbox/process-sandbox.js';
import { CONFIG_HINT, sandboxRefusal } from '../sandbox/explain-refusal.js';
import { moveCreatedConfig } from '../sandbox/config-guard.js';
import { refusedConfigDir } from '../process/paths.js';
import { grantedPaths } from '../sandbox/granted-folders.js';
import { hostAllowed } from '../sandbox/network-allow.js';
import { hostsTheCommandNeeds, networkWaitNote } from '../sandbox/network-wait.js';
import { startProcessGroup, type Exit, type ProcessGroup } from './shell/process-group.js';
import { resolveInProject } from './files/project-path.js';
import { ToolError, type ToolContext, type ToolHandler } from './running/tool-handler.js';
import { toolEnvironment } from './shell/tool-env.js';
import { errorMessage } from '../../core/text/error-message.js';

/** How long a sandboxed command that needs a host it cannot reach may be silent before it is told (and the person). */
const NETWORK_SILENCE_MS = 5_000;
/** How much of the output so far a progress update carries. */
const PROGRESS_CHARS = 30_000;
/** Output held in memory; a runaway command's output past this is counted, not kept. */
const MAX_KEPT_CHARS = 10 * 1024 * 1024;

/**
 * Runs a command with bash in its own process group. A timeout, a cancellation or the death of
 * this worker stops the command and everything it started; a non-zero exit is a normal result.
 */
export const bash: ToolHandler<z.infer<typeof bashSpec.parameters>> = async (input, context) => {
  const workdir = resolveInProject(context, input.workdir);
  await checkDirectory(workdir);
  if (context.abort.aborted) throw abortError(context.abort);
  const timeoutMs = Math.min(input.timeout ?? BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_TIMEOUT_MS);
  const { description } = input;

  const confinement = input.sandbox === false ? {} : await confined(input, workdir, context);
  const { sandbox } = confinement;
  // Where config files the command creates are moved: worked out before it starts, so nothing can
  // throw between its start and the wait for it.
  const aside = sandbox
    ? refusedConfigDir(context.dataDir, context.sessionId, context.callId ?? `call-${Date.now()}`)
    : undefined;
  const output = new CapturedOutput();
  const unreachable = sandbox
    ? hostsTheCommandNeeds(input.command).filter((host) => !hostAllowed(host, 443, sandbox.policy.allowedHosts))
    : [];
  let networkNote: string | undefined;
  let lastOutputAt = Date.now();
  const report = () =>
    context.update({
      metadata: {
        output: networkNote ? `${output.tail}\n\n${networkNote}` : output.tail,
        description,
        ...(networkNote ? { sandboxNote: networkNote } : {}),
      },
    });
  let group: ProcessGroup;
  try {
    group = await startProcessGroup(input.command, {
      cwd: workdir,
      env: toolEnvironment(context.env, context.config),
      ...(sandbox ? { sandbox } : {}),
      onOutput: (text) => {
        output.append(text);
        lastOutputAt = Date.now();
        report();
      },
    });
  } catch (error) {
    await sandbox?.close();
    throw new ToolError(`Could not start bash in ${workdir}: ${errorMessage(error)}`);
  }

  let stoppedBy: 'timeout' | 'abort' | undefined;
  let stopping: Promise<void> | undefined;
  const stop = (reason: 'timeout' | 'abort') => {
    if (stoppedBy) return;
    stoppedBy = reason;
    stopping = group.kill();
  };
  const timer = setTimeout(() => stop('timeout'), timeoutMs);
  const silence =
    unreachable.length > 0
      ? setInterval(() => {
          const silentFor = Date.now() - lastOutputAt;
          if (networkNote || silentFor < NETWORK_SILENCE_MS) return;
          networkNote = networkWaitNote(unreachable, silentFor);
          report();
        }, 1_000)
      : undefined;
  const onAbort = () => stop('abort');
  context.abort.addEventListener('abort', onAbort, { once: true });
  if (context.abort.aborted) onAbort();
  let exit: Exit;
  let movedConfig: string[] = [];
  try {
    exit = sandbox ? signalledInside(await group.exited) : await group.exited;
    await stopping;
  } finally {
    clearTimeout(timer);
    clearInterval(silence);
    context.abort.removeEventListener('abort', onAbort);
    await group.finish();
    await sandbox?.close();
    if (sandbox && aside) movedConfig = await moveCreatedConfig(sandbox.policy.config, aside);
  }
  if (stoppedBy === 'abort') throw abortError(context.abort);
  const configNote = movedConfig.length
    ? `Loom moved ${movedConfig.join(', ')} out of the project into ${aside}: the command created Loom configuration there. ${CONFIG_HINT}`
    : undefined;

  const text = output.text().replace(/\n+$/, '') || '(no output)';
  const sandboxed = sandbox ? {} : { unsandboxed: true };
  if (stoppedBy === 'timeout') {
    return {
      title: description,
      output: withNotes(text, [
        `Command timed out after ${timeoutMs} ms and was stopped.`,
        networkNote,
        configNote,
        confinement.warning,
      ]),
      metadata: {
        exit: null,
        description,
        timedOut: true,
        ...sandboxed,
        ...(networkNote ? { sandboxRefusal: unreachableSaid(unreachable) } : {}),
      },
    };
  }
  const failed = exit.signal !== null || exit.code !== 0;
  const note = exit.signal
    ? `Killed by signal ${exit.signal}`
    : exit.code !== 0
      ? `Exit code: ${exit.code}`
      : undefined;
  const refusal = sandbox
    ? sandboxRefusal(output.text(), failed, sandbox.policy, sandbox.refused(), {
        hostSockets: sandbox.hostSockets,
        command: input.command,
      })
    : undefined;
  return {
    title: description,
    output: withNotes(text, [
      note,
      refusal?.forModel ?? (failed ? networkNote : undefined),
      configNote,
      confinement.warning,
    ]),
    metadata: {
      exit: exit.code,
      description,
      ...sandboxed,
      ...(refusal || configNote ? { sandboxRefused: true } : {}),
      // What the person's transcript and a later `unsandboxed` ask say was refused.
      ...(failed && networkNote && !refusal ? { sandboxRefusal: unreachableSaid(unreachable) } : {}),
      ...(refusal || configNote
        ? {
            sandboxRefusal: refusal?.reasons.join('; ') ?? `Loom moved the configuration it created out of the project`,
          }
        : {}),
    },
  };
};

function unreachableSaid(hosts: string[]): string {
  return `it waited for ${hosts.join(', ')}, which the sandbox cannot reach (no network)`;
}

/** The sandbox for this call: the project's settings with the agent's over them. */
async function confined(
  input: { command: string; workdir?: string },
  workdir: string,
  context: ToolContext,
): Promise<Confinement> {
  try {
    return await confine(agentSandbox(context.config, context.agent), {
      workspace: context.directory,
      dataDir: context.dataDir,
      cwd: workdir,
      env: context.env,
      sessionId: context.sessionId,
      ...(context.runId ? { runKey: context.runId } : {}),
      granted: await grantedPaths(input, context),
      what: 'bash',
    });
  } catch (error) {
    if (error instanceof SandboxUnavailableError) throw new ToolError(error.message);
    throw new ToolError(`Could not prepare the sandbox for bash: ${errorMessage(error)}`);
  }
}

/** bubblewrap exits with 128 + n when the command died of signal n, as a shell reports it. */
function signalledInside(exit: Exit): Exit {
  const signal = exit.code !== null && exit.code > 128 ? signalName(exit.code - 128) : undefined;
  return signal ? { code: null, signal } : exit;
}

function signalName(number: number): NodeJS.Signals | undefined {
  return (Object.entries(constants.signals) as [NodeJS.Signals, number][]).find(([, value]) => value === number)?.[0];
}

function withNotes(text: string, notes: (string | undefined)[]): string {
  const said = notes.filter((note): note is string => note !== undefined);
  return said.length ? `${text}\n\n${said.join('\n\n')}` : text;
}

async function checkDirectory(path: string): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (!info) throw new ToolError(`The workdir ${path} does not exist.`);
  if (!info.isDirectory()) throw new ToolError(`The workdir ${path} is a file, not a directory.`);
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new Error('The bash command was cancelled.');
}

/** The command's output: all of it for the result (up to a limit), and its tail for progress. */
class CapturedOutput {
  tail = '';
  private chunks: string[] = [];
  private kept = 0;
  private dropped = 0;

  append(text: string): void {
    this.tail = (this.tail + text).slice(-PROGRESS_CHARS);
    if (this.dropped === 0 && this.kept + text.length <= MAX_KEPT_CHARS) {
      this.chunks.push(text);
      this.kept += text.length;
    } else {
      this.dropped += text.length;
    }
  }

  text(): string {
    const text = this.chunks.join('');
    return this.dropped > 0 ? `${text}\n(${this.dropped} more characters of output were not kept)` : text;
  }
}
