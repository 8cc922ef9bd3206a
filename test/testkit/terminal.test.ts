import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { write } from '../../testkit/files.js';
import { screenshotPng } from '../../testkit/terminal/screenshot.js';
import { parseStyledScreen } from '../../testkit/terminal/sgr.js';
import { TerminalSession, type TerminalOptions } from '../../testkit/terminal/terminal-session.js';

const folder = mkdtempSync(join(tmpdir(), 'loom-terminal-test-'));
const sessions: TerminalSession[] = [];

async function start(options: TerminalOptions): Promise<TerminalSession> {
  const session = await TerminalSession.start(options);
  sessions.push(session);
  return session;
}

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((session) => session.close()));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Reads keys in raw mode and shows each as a JSON string; shows its size when resized; `q` ends it with status 3. */
const KEY_ECHO = `
const out = process.stdout;
out.write('ready ' + out.columns + 'x' + out.rows + '\\n');
process.stdin.setRawMode(true);
process.stdin.on('data', (data) => {
  const text = data.toString('utf8');
  if (text === 'q') process.exit(3);
  out.write('key ' + JSON.stringify(text) + '\\n');
});
out.on('resize', () => out.write('resized ' + out.columns + 'x' + out.rows + '\\n'));
`;

describe('a terminal session', () => {
  it('gives the program TERM=xterm-256color and the environment it was given, without the CI markers', async () => {
    const terminal = await start({
      command: [
        'sh',
        '-c',
        'printf "TERM=%s CI=%s CONTINUOUS_INTEGRATION=%s MARK=%s COLUMNS=%s\\n" "$TERM" "${CI-unset}" ' +
          '"${CONTINUOUS_INTEGRATION-unset}" "$LOOM_TERMINAL_MARK" "$(tput cols)"; pwd',
      ],
      cwd: folder,
      env: { ...process.env, CI: 'true', CONTINUOUS_INTEGRATION: '1', COLUMNS: '7', LOOM_TERMINAL_MARK: 'marked' },
      columns: 90,
      rows: 10,
    });
    expect(await terminal.waitForExit()).toEqual({ status: 0 });
    const screen = await terminal.screen();
    expect(screen).toContain('TERM=xterm-256color CI=unset CONTINUOUS_INTEGRATION=unset MARK=marked COLUMNS=90');
    expect(screen).toContain(folder);
  });

  it('types text and presses named keys as a user does, resizes, and keeps the final screen and exit status', async () => {
    const terminal = await start({ command: [process.execPath, '-e', KEY_ECHO], columns: 80, rows: 24 });
    await terminal.waitFor('ready 80x24');
    await terminal.type('-x héllo');
    await terminal.waitFor('key "-x héllo"');
    const keys: [string, string][] = [
      ['Enter', '"\\r"'],
      ['Escape', '"\\u001b"'],
      ['C-x', '"\\u0018"'],
      ['Up', '"\\u001b[A"'],
      ['Tab', '"\\t"'],
      ['BTab', '"\\u001b[Z"'],
    ];
    for (const [key, shown] of keys) {
      await terminal.press(key);
      await terminal.waitFor(`key ${shown}`);
    }
    await terminal.resize(60, 12);
    await terminal.waitFor('resized 60x12');
    expect(await terminal.size()).toEqual({ columns: 60, rows: 12 });
    expect(await terminal.exited()).toBeUndefined();
    await terminal.type('q');
    expect(await terminal.waitForExit()).toEqual({ status: 3 });
    expect(await terminal.screen()).toMatch(/key "\\u001b\[Z"\nresized 60x12$/);
  });

  it('reports a signal that ended the program', async () => {
    const terminal = await start({ command: ['sh', '-c', 'echo going; kill -TERM $$'], rows: 5 });
    expect(await terminal.waitForExit()).toEqual({ signal: 15 });
    expect(await terminal.screen()).toBe('going');
  });

  it('runs a single-word command directly, whatever its name holds', async () => {
    const script = join(folder, "it's a script.sh");
    write(script, '#!/bin/sh\necho "ran $0"\n');
    chmodSync(script, 0o755);
    const terminal = await start({ command: [script], rows: 5 });
    expect(await terminal.waitForExit()).toEqual({ status: 0 });
    expect(await terminal.screen()).toBe(`ran ${script}`);
  });

  it('fails a wait with the screen it saw, at once when the program has ended', async () => {
    const running = await start({ command: ['sh', '-c', 'echo still here; sleep 30'], rows: 5 });
    await running.waitFor('still here');
    await expect(running.waitFor(/never/, { timeoutMs: 200 })).rejects.toThrow(
      /\/never\/ did not appear .* not within 200 ms\. The screen showed:\n│ still here/,
    );
    const ended = await start({ command: ['sh', '-c', 'echo bye; exit 4'], rows: 5 });
    const started = Date.now();
    await expect(ended.waitFor('never', { timeoutMs: 5000 })).rejects.toThrow(/the program ended \(status 4\) first/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("names the program's process and records the bytes it writes, escape codes and all", async () => {
    const output = join(folder, "it's output");
    const terminal = await start({ command: [process.execPath, '-e', KEY_ECHO], rows: 5 });
    await terminal.waitFor('ready');
    expect(readFileSync(`/proc/${await terminal.pid()}/cmdline`, 'utf8')).toContain(KEY_ECHO.trim().slice(0, 20));
    await terminal.recordOutput(output);
    await terminal.type('z');
    await terminal.waitFor('key "z"');
    await expect.poll(() => readFileSync(output, 'utf8')).toContain('key "z"\r\n');
  });
});

const COLOURED = [
  'printf "\\033[1;31mbold red\\033[0m \\033[2mdim\\033[22m \\033[3;4mitalic underlined\\033[0m \\033[7m inverse \\033[0m\\n"',
  'printf "\\033[38;5;208m256 orange\\033[0m \\033[38;2;120;200;255mtruecolor\\033[0m \\033[48;5;24m background \\033[0m\\n"',
  'printf "\\033[42m                    \\033[0m\\n"',
  'printf "┌──────┐\\n│ box  │ 世界 ✓\\n└──────┘\\n"',
].join('; ');

describe('a screenshot of a terminal', () => {
  it('captures colours from tmux and draws them as a PNG', { timeout: 120_000 }, async () => {
    const terminal = await start({ command: ['sh', '-c', `${COLOURED}; sleep 30`], columns: 48, rows: 8 });
    await terminal.waitFor('└──────┘');
    const capture = await terminal.screenWithColours();
    const runs = parseStyledScreen(capture).flat();
    const styleOf = (text: string) => runs.find((run) => run.text.includes(text))?.style;
    expect(styleOf('bold red')).toMatchObject({ bold: true, foreground: { kind: 'indexed', index: 1 } });
    expect(styleOf('256 orange')).toMatchObject({ bold: false, foreground: { kind: 'indexed', index: 208 } });
    expect(styleOf('truecolor')).toMatchObject({ foreground: { kind: 'rgb', red: 120, green: 200, blue: 255 } });
    // Background-coloured blanks at a line's end stay in the capture, so the picture shows them.
    expect(styleOf(' '.repeat(20))).toMatchObject({ background: { kind: 'indexed', index: 2 } });

    // Kept after the run (as browser tests keep theirs) for a look at the picture.
    const png = join(mkdtempSync(join(tmpdir(), 'loom-terminal-shots-')), 'screen.png');
    process.stdout.write(`terminal screenshot: ${png}\n`);
    await screenshotPng(capture, png, { columns: 48, rows: 8, title: 'loom' });
    const bytes = readFileSync(png);
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(bytes.toString('latin1', 12, 16)).toBe('IHDR');
    const [width, height] = [bytes.readUInt32BE(16), bytes.readUInt32BE(20)];
    // At scale 2: 48 cells of about 9 px and 8 rows of about 17 px, with the title bar and margins.
    expect(width).toBeGreaterThan(2 * 48 * 7);
    expect(width).toBeLessThan(2 * (48 * 12 + 120));
    expect(height).toBeGreaterThan(2 * 8 * 14);
    expect(height).toBeLessThan(2 * (8 * 22 + 160));
  });
});

describe('reading SGR codes', () => {
  it('reads 16, 256 and 24-bit colours, attributes, resets and the colon form', () => {
    const [line] = parseStyledScreen(
      '\u001b[1;31ma\u001b[0mb\u001b[38;5;208;48;2;1;2;3mc\u001b[39;49;7md\u001b[27;38:2::9:8:7;4:3me\u001b[4:0;2mf',
    );
    expect(line.map((run) => run.text)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    const [a, b, c, d, e, f] = line.map((run) => run.style);
    expect(a).toMatchObject({ bold: true, foreground: { kind: 'indexed', index: 1 } });
    expect(b).toMatchObject({ bold: false, foreground: { kind: 'default' } });
    expect(c).toMatchObject({
      foreground: { kind: 'indexed', index: 208 },
      background: { kind: 'rgb', red: 1, green: 2, blue: 3 },
    });
    expect(d).toMatchObject({ inverse: true, foreground: { kind: 'default' }, background: { kind: 'default' } });
    expect(e).toMatchObject({
      inverse: false,
      underline: true,
      foreground: { kind: 'rgb', red: 9, green: 8, blue: 7 },
    });
    expect(f).toMatchObject({ underline: false, dim: true });
  });

  it('carries a style across lines and skips other escape sequences', () => {
    const lines = parseStyledScreen('\u001b]0;title\u0007\u001b[32mgreen\nstill\u001b[m\u001b[2Kplain\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toEqual([
      { text: 'green', style: expect.objectContaining({ foreground: { kind: 'indexed', index: 2 } }) },
    ]);
    expect(lines[1].map((run) => [run.text, run.style.foreground.kind])).toEqual([
      ['still', 'indexed'],
      ['plain', 'default'],
    ]);
  });
});
