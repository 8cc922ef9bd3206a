import { render } from 'ink';
import type { ClientContext } from '../context.js';
import type { ProjectAgents } from '../services/project-agents.js';
import { App } from './components/app.js';
import { SessionWatch } from './session/session-watch.js';
import { errorMessage } from '../../core/text/error-message.js';
import type { Keybinds } from './input/keybinds.js';
import { reportRouter } from './report-router.js';
import { TuiServices, type QuitState } from './tui-services.js';

/** The alternate screen (the shell's screen comes back on exit), and bracketed paste: pasted text is marked as such. */
const ENTER_SCREEN = '\x1b[?1049h\x1b[H\x1b[?2004h';
const LEAVE_SCREEN = '\x1b[?2004l\x1b[?1049l';

/**
 * Draws the terminal UI on the terminal's alternate screen until the person quits, so the shell's
 * screen comes back as it was. Temporal is reached (the embedded server started if need be) and a
 * worker found or started once the screen is up, so the first screen does not wait for them.
 */
export async function openTui(
  context: ClientContext,
  options: { directory: string; project: ProjectAgents; keybinds: Keybinds; sessionId?: string },
): Promise<QuitState | undefined> {
  const target = await context.target();
  const services = new TuiServices(
    context,
    options.directory,
    options.project,
    options.keybinds,
    target.namespace,
    TuiServices.uiOf(target, context.env),
  );
  const unroute = reportRouter.routeTo((line) => services.report(line));
  // The first frame shows the transcript: it is read before the screen is drawn.
  const watch = options.sessionId
    ? new SessionWatch(context.store, options.sessionId, (error) => services.report(errorMessage(error), true))
    : undefined;
  await watch?.start().catch(() => undefined);
  process.stdout.write(ENTER_SCREEN);
  const app = render(<App services={services} sessionId={options.sessionId} watch={watch} />, {
    exitOnCtrlC: false,
    patchConsole: true,
    // A key typed while an answer streams waits for the next frame: at 30 a second, up to 33 ms.
    maxFps: 120,
    incrementalRendering: false,
  });
  void context
    .temporal()
    .then(() => services.workerState(options.sessionId))
    .catch((error: Error) => services.report(error.message, true));
  try {
    await app.waitUntilExit();
  } finally {
    app.cleanup();
    process.stdout.write(LEAVE_SCREEN);
    unroute();
  }
  return services.quitState;
}
