import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { startScriptedModel } from '../model/scripted-model.js';
import { LOOM_BIN } from '../loom/worker-process.js';
import { startTemporalServer } from '../temporal/temporal-server.js';
import { screenshotPng } from '../terminal/screenshot.js';
import { TerminalSession } from '../terminal/terminal-session.js';
import { waitUntil } from '../wait.js';
import { PROJECT_ROOT } from '../../worker/bundle.js';
import { SCREENSHOT_ANSWER_END, SCREENSHOT_PROMPT, screenshotScript } from './tui-screenshot-script.js';

/**
 * `npm run screenshot:tui [out.png]`: the README's picture of the terminal UI (`docs/tui.png`).
 * `loom` runs with no arguments in a real terminal (tmux) in this checkout, against the scripted
 * model (`tui-screenshot-script.ts`), an in-memory Temporal dev server of its own and a temporary
 * data folder; the prompt is typed, and once the answer is in and the run idle, the screen is
 * drawn as a PNG. Nothing outside the temporary folder is written but the picture.
 */
const COLUMNS = 110;
const ROWS = 32;
/** The status row once the run is over and no notice is left: the screen as a person would find it. */
const IDLE_STATUS = 'tab agents · ctrl+x l sessions';
const MODEL = 'scripted/demo';

const out = resolve(process.argv[2] ?? join(PROJECT_ROOT, 'docs', 'tui.png'));
const root = mkdtempSync(join(tmpdir(), 'loom-tui-screenshot-'));
const temporal = await startTemporalServer();
const model = await startScriptedModel(screenshotScript);
let terminal: TerminalSession | undefined;
try {
  const { NO_COLOR: _noColour, ...inherited } = process.env;
  terminal = await TerminalSession.start({
    command: [process.execPath, LOOM_BIN],
    cwd: PROJECT_ROOT,
    columns: COLUMNS,
    rows: ROWS,
    env: {
      ...inherited,
      COLORTERM: 'truecolor',
      // React's production build, as a person's `loom` runs it.
      NODE_ENV: 'production',
      LOOM_MODEL: MODEL,
      LOOM_DATA_DIR: join(root, 'data'),
      // No person's own loom.json: the picture shows the defaults.
      LOOM_CONFIG_DIR: join(root, 'config'),
      LOOM_TASK_QUEUE: `loom-tui-screenshot-${process.pid}`,
      TEMPORAL_ADDRESS: temporal.address,
      LOOM_CONFIG_CONTENT: JSON.stringify({
        // Snapshots of a checkout this size are work the picture does not show.
        snapshot: false,
        provider: {
          scripted: {
            options: { baseURL: model.url, apiKey: 'demo' },
            // A window, so the footer says how much of it the last step used.
            models: { demo: { limit: { context: 200_000, output: 16_000 } } },
          },
        },
      }),
    },
  });
  await terminal.waitFor('Ask anything', { timeoutMs: 60_000 });
  await terminal.type(SCREENSHOT_PROMPT);
  await terminal.press('Enter');
  await terminal.waitFor(SCREENSHOT_ANSWER_END, { timeoutMs: 120_000 });
  const shown = terminal;
  await waitUntil(async () => {
    const screen = await shown.screen();
    return screen.includes(IDLE_STATUS) && !screen.includes('● busy');
  }, 30_000).catch(async () => {
    throw new Error(`The run did not settle; the screen showed:\n${await shown.screen()}`);
  });
  const capture = await terminal.screenWithColours();
  await screenshotPng(capture, out, { ...(await terminal.size()), title: 'loom', scale: 1.5 });
  await terminal.press('C-d');
  await terminal.waitForExit({ timeoutMs: 30_000 });
  process.stdout.write(`Wrote ${relative(process.cwd(), out)} (${Math.round(statSync(out).size / 1024)} KiB).\n`);
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await terminal?.close();
  await model.close();
  await temporal.teardown();
  rmSync(root, { recursive: true, force: true });
}
