import { resolve } from 'node:path';
import type { ClientContext } from '../context.js';
import { InputError } from '../input-error.js';
import { loadProjectAgents } from '../services/project-agents.js';
import { filesForPerson, reviewConfig } from '../services/config-review.js';
import { recordedFiles, type ConfigFiles } from '../../activities/config/files.js';
import { paintFirstScreen } from '../tui/first-paint.js';
import type { QuitState } from '../tui/tui-services.js';
import { loadKeybinds } from '../tui/input/keybind-config.js';
import type { Keybinds } from '../tui/input/keybinds.js';

export interface TuiOptions {
  continue?: boolean;
  dir?: string;
}

/**
 * `loom tui [sessionId]` (and `loom` alone in a terminal): the terminal UI on a session, a new one
 * by default, the project's latest with `--continue`. When it closes with a run still going, it
 * says where the run goes on and how to reopen it.
 */
export async function tuiCommand(
  context: ClientContext,
  sessionId: string | undefined,
  options: TuiOptions,
): Promise<number> {
  if (!process.stdin.isTTY || !process.stdout.isTTY)
    throw new InputError(
      'loom tui needs a terminal (stdin and stdout); `loom run "…"` and `loom resume` work without one.',
    );
  if (sessionId && options.continue) throw new InputError('Name a session or pass --continue, not both.');
  const directory = resolve(options.dir ?? process.cwd());
  // A config file's `keybinds` with a name Loom does not know or a value that is not keys stops
  // here, each problem naming its file, before the screen opens.
  // Both come from the project files the person trusts: a change an agent made to loom.json
  // waits for their review before it rebinds a key.
  const { standing } = await reviewConfig(context.store, directory, context.env);
  const files = filesForPerson(standing);
  const keybinds = checkedKeybinds(directory, context.env, recordedFiles(files));
  const project = loadProjectAgents(directory, context.env, context.settings.dataDir, files);
  const latest = options.continue ? await latestSession(context, directory) : undefined;
  const screen = await paintFirstScreen(context, { directory, project, keybinds, sessionId: sessionId ?? latest });
  let state: QuitState | undefined;
  try {
    // Ink and React load while the first frame is on the screen.
    state = await (await import('../tui/open-tui.js')).openTui(screen);
  } finally {
    screen.leave();
  }
  if (state?.sessionId) printLeaving(context, state.sessionId, state.busy);
  return 0;
}

/** The project's `keybinds` over the defaults; a bad one is an error naming its file and key. */
function checkedKeybinds(directory: string, env: NodeJS.ProcessEnv, project: ConfigFiles): Keybinds {
  try {
    return loadKeybinds(directory, env, project);
  } catch (error) {
    throw new InputError((error as Error).message);
  }
}

async function latestSession(context: ClientContext, directory: string): Promise<string> {
  const sessions = await context.store.listSessions({ roots: true, directory, limit: 1 });
  if (!sessions.length) throw new InputError(`No sessions in ${directory} yet: \`loom\` starts one.`);
  return sessions[0].id;
}

/** What goes on after the screen closes, and the command that reopens it. */
function printLeaving(context: ClientContext, sessionId: string, busy: boolean): void {
  if (busy) {
    const where = context.hasInProcessWorker
      ? `Its run waits for a worker to go on: \`loom worker\` (or reopening it, which runs one).`
      : `Its run goes on in the worker serving task queue "${context.settings.taskQueue}".`;
    process.stderr.write(`Session ${sessionId} is still running. ${where}\n`);
  }
  process.stderr.write(`Reopen it: loom tui ${sessionId}\n`);
}
