import type { ClientContext } from '../context.js';
import type { ProjectAgents } from '../services/project-agents.js';
import { errorMessage } from '../../core/text/error-message.js';
import { screenSections } from './components/screen-lines.js';
import { EMPTY_BUFFER } from './input/prompt-buffer.js';
import type { Keybinds } from './input/keybinds.js';
import { reportRouter } from './report-router.js';
import { SessionWatch } from './session/session-watch.js';
import { TranscriptLines } from './transcript/transcript-lines.js';
import { TuiServices } from './tui-services.js';

/** The alternate screen (the shell's screen comes back on exit), and bracketed paste: pasted text is marked as such. */
const ENTER_SCREEN = '\x1b[?1049h\x1b[H\x1b[?2004h';
const LEAVE_SCREEN = '\x1b[?2004l\x1b[?1049l';
const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';
/** Synchronized output: terminals that know it draw what comes between the marks at once. */
const BEGIN_FRAME = '\x1b[?2026h';
const END_FRAME = '\x1b[?2026l';
const HOME = '\x1b[H';

/** The screen as first painted, handed to Ink (client/tui/open-tui.tsx) to carry on. */
export interface FirstScreen {
  services: TuiServices;
  sessionId: string | undefined;
  watch: SessionWatch | undefined;
  /** The transcript's rendered lines, kept for Ink's frames. */
  transcript: TranscriptLines;
  /** Gives the terminal back as it was (the shell's screen, the cursor, cooked input); once. */
  leave(): void;
}

/**
 * Opens the terminal UI's screen and paints its first frame, the session's transcript included,
 * before Ink and React are loaded: they take a few hundred ms to load and draw, and the person
 * sees their session meanwhile. Ink's first frame is drawn from the same lines
 * (components/screen-lines.ts) on the same cells. Keys typed before Ink takes over wait in the
 * terminal (raw mode, so they are not echoed over the screen), and Ink reads them.
 *
 * Temporal is not reached here: the first frame needs only the store.
 */
export async function paintFirstScreen(
  context: ClientContext,
  options: { directory: string; project: ProjectAgents; keybinds: Keybinds; sessionId?: string },
): Promise<FirstScreen> {
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
  const watch = options.sessionId
    ? new SessionWatch(context.store, options.sessionId, (error) => services.report(errorMessage(error), true))
    : undefined;
  await watch?.start().catch(() => undefined);
  const transcript = new TranscriptLines();
  const snapshot = watch?.current();
  const sections = screenSections({
    columns: process.stdout.columns || 80,
    rows: process.stdout.rows || 24,
    sessionId: options.sessionId,
    snapshot,
    directory: options.directory,
    footer: services.footerFacts(
      snapshot?.session?.agent ?? services.defaultAgent,
      snapshot?.session?.model,
      options.sessionId,
    ),
    transcript,
    buffer: EMPTY_BUFFER,
    queued: [],
    menu: undefined,
    menuIndex: 0,
    dialog: undefined,
    permissionStep: { kind: 'choose' },
    expanded: false,
    thinking: false,
    scroll: 0,
    tick: 0,
    notice: undefined,
    leaderPending: false,
  });
  const rawBefore = process.stdin.isRaw;
  process.stdin.setRawMode?.(true);
  process.stdout.write(`${ENTER_SCREEN}${HIDE_CURSOR}${BEGIN_FRAME}${sections.join('\n')}${HOME}${END_FRAME}`);
  let left = false;
  return {
    services,
    sessionId: options.sessionId,
    watch,
    transcript,
    leave() {
      if (left) return;
      left = true;
      process.stdin.setRawMode?.(rawBefore);
      process.stdout.write(`${LEAVE_SCREEN}${SHOW_CURSOR}`);
      unroute();
    },
  };
}
