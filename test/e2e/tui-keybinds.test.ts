import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LOOM_BIN } from '../../testkit/loom/worker-process.js';
import { TerminalSession } from '../../testkit/terminal/terminal-session.js';

// `keybinds` in a config file is checked when the terminal UI starts: a bad one stops it, naming the file.

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('the terminal UI with bad keybinds', () => {
  it('does not open, and says which file holds each bad name or key', async () => {
    const root = mkdtempSync(join(tmpdir(), 'loom-tui-keybinds-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const project = join(root, 'project');
    mkdirSync(project);
    const file = join(project, 'loom.json');
    writeFileSync(
      file,
      JSON.stringify({ keybinds: { sesion_list: 'ctrl+g', session_parent: 'ctrl+', theme_list: 'ctrl+t' } }),
    );
    const terminal = await TerminalSession.start({
      command: [process.execPath, LOOM_BIN],
      cwd: project,
      columns: 200,
      rows: 20,
      env: {
        ...process.env,
        LOOM_DATA_DIR: join(root, 'data'),
        LOOM_CONFIG_DIR: join(root, 'config'),
        // Nothing is reached: the check comes before Temporal is.
        TEMPORAL_ADDRESS: '127.0.0.1:1',
      },
    });
    cleanups.push(() => terminal.close());

    expect(await terminal.waitForExit({ timeoutMs: 30_000 })).toEqual({ status: 1 });
    const screen = await terminal.screen();
    expect(screen).toContain(`keybinds.sesion_list in ${file}: no such keybind; did you mean "session_list"?`);
    expect(screen).toContain(`keybinds.session_parent in ${file}: "ctrl+" is not a key`);
    // A name of OpenCode's that Loom does not implement is accepted.
    expect(screen).not.toContain('theme_list');
    expect(screen).not.toContain('Ask anything');
  }, 60_000);
});
