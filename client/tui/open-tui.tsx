import { render } from 'ink';
import { App } from './components/app.js';
import type { FirstScreen } from './first-paint.js';
import type { QuitState } from './tui-services.js';

/**
 * Runs the terminal UI in Ink on the screen `paintFirstScreen` opened, until the person quits.
 * Temporal is reached (the embedded server started if need be) and a worker found or started once
 * the screen is up, so the first screen does not wait for them.
 */
export async function openTui(screen: FirstScreen): Promise<QuitState | undefined> {
  const { services } = screen;
  const app = render(
    <App services={services} sessionId={screen.sessionId} watch={screen.watch} transcript={screen.transcript} />,
    {
      exitOnCtrlC: false,
      patchConsole: true,
      // A key typed while an answer streams waits for the next frame: at 30 a second, up to 33 ms.
      maxFps: 120,
      incrementalRendering: false,
    },
  );
  void services.context
    .temporal()
    .then(() => services.workerState(screen.sessionId))
    .catch((error: Error) => services.report(error.message, true));
  try {
    await app.waitUntilExit();
  } finally {
    // The caller gives the terminal back (`screen.leave`), after Ink's last frame.
    app.cleanup();
  }
  return services.quitState;
}
