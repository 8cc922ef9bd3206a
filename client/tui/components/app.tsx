import { Box, Text, useApp, useInput, type Key } from 'ink';
import { splitKeys } from './key-chunks.js';
import { completionMenu, pickCompletion } from './completion-menu.js';
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { errorMessage } from '../../../core/text/error-message.js';
import type { TuiServices } from '../tui-services.js';
import { KeyResolver } from '../input/key-resolver.js';
import {
  EMPTY_BUFFER,
  bufferOf,
  deleteForward,
  insertNewline,
  insertText,
  type PromptBuffer,
} from '../input/prompt-buffer.js';
import {
  promptHistory,
  recallNext,
  recallPrevious,
  rememberPrompt,
  upRecallsHistory,
  downRecallsHistory,
  type PromptHistory,
} from '../input/prompt-history.js';
import { SessionWatch, type SessionSnapshot } from '../session/session-watch.js';
import { TranscriptLines } from '../transcript/transcript-lines.js';
import { loadHighlighter } from '../render/highlight.js';
import type { ListDialog } from './list-dialog.js';
import type { WorkerState } from './footer-lines.js';
import type { PermissionStep } from './permission-lines.js';
import { useTerminalSize } from './use-terminal-size.js';
import { editPrompt } from './prompt-keys.js';
import { runAction, type AppControls } from './actions.js';
import { MIN_COLUMNS, MIN_ROWS, screenSections, type Notice } from './screen-lines.js';

/** How Ink hands on the bracketed-paste markers (`ESC [200~`, `ESC [201~`), without their escape. */
const PASTE_START = '[200~';
const PASTE_END = '[201~';

export interface AppProps {
  services: TuiServices;
  /** The session to open (`loom tui <id>`, `--continue`); the home screen when absent. */
  sessionId?: string;
  /** Its watch, started before the first frame so that frame shows the transcript. */
  watch?: SessionWatch;
  /** The transcript's lines as the first paint rendered them. */
  transcript?: TranscriptLines;
}

/**
 * The terminal UI: one session's transcript (streamed as the store receives it), the prompt box
 * or a waiting request's panel below it, a status row and the footer. The session shown changes
 * in place (a subagent's, its parent's, another from the list): the screen is the terminal's
 * alternate screen, drawn one screenful at a time, rather than Ink's static region, whose lines
 * stay in the scrollback once written.
 */
export function App({ services, sessionId: initial, watch: initialWatch, transcript: painted }: AppProps) {
  const { exit } = useApp();
  const { columns, rows } = useTerminalSize();
  const [sessionId, setSessionId] = useState<string | undefined>(initial);
  const [buffer, setBufferState] = useState<PromptBuffer>(EMPTY_BUFFER);
  // Several keys can arrive in one read (typed fast, or sent by a program): each sees the edits before it.
  const bufferRef = useRef(buffer);
  const setBuffer = useCallback((next: PromptBuffer | ((value: PromptBuffer) => PromptBuffer)) => {
    bufferRef.current = typeof next === 'function' ? next(bufferRef.current) : next;
    setBufferState(bufferRef.current);
  }, []);
  const [notice, setNotice] = useState<Notice | undefined>();
  const [dialog, setDialog] = useState<ListDialog | undefined>();
  const [scroll, setScroll] = useState(0);
  const [expanded, setExpanded] = useState(false);
  const [thinking, setThinking] = useState(false);
  const [leaderPending, setLeaderPending] = useState(false);
  const [agent, setAgent] = useState<string | undefined>();
  const [model, setModel] = useState<string | undefined>();
  const [permissionStep, setPermissionStep] = useState<PermissionStep>({ kind: 'choose' });
  const [, setWorker] = useState<WorkerState>('unknown');
  const [tick, setTick] = useState(0);
  const [menuIndex, setMenuIndex] = useState(0);
  const [menuClosedFor, setMenuClosedFor] = useState<string | undefined>();
  const [files, setFiles] = useState<readonly string[]>([]);
  const [queued, setQueued] = useState<{ text: string; users: number }[]>([]);
  const escapeAt = useRef(0);
  const pasting = useRef(false);
  const interruptAt = useRef(0);
  const history = useRef<PromptHistory>(promptHistory([]));
  const resolver = useMemo(() => new KeyResolver(services.keybinds), [services]);
  const transcript = useRef(painted ?? new TranscriptLines());

  const say = useCallback((text: string, error = false) => setNotice({ text, error, at: Date.now() }), []);
  const fail = useCallback((error: unknown) => say(errorMessage(error), true), [say]);

  // The watch started before the first frame serves the first session shown, once.
  const firstWatch = useRef(initialWatch);
  const watch = useMemo(() => {
    const first = firstWatch.current;
    firstWatch.current = undefined;
    if (first && sessionId === initial) return first;
    return sessionId ? new SessionWatch(services.context.store, sessionId, fail) : undefined;
  }, [sessionId, services, fail, initial]);
  useEffect(() => {
    if (!watch) return;
    watch.start().catch(fail);
    return () => watch.stop();
  }, [watch, fail]);
  const snapshot = useSyncExternalStore(
    useCallback((listener: () => void) => watch?.subscribe(listener) ?? (() => undefined), [watch]),
    () => watch?.current(),
  );
  const session = snapshot?.session;
  const busy = session?.status === 'busy';

  useEffect(() => {
    setScroll(0);
    setPermissionStep({ kind: 'choose' });
  }, [sessionId]);

  useEffect(() => services.onReport((line, error) => say(line, error)), [services, say]);

  // Code is drawn again in colour once the grammars are in (they are not loaded for the first paint).
  const [, setHighlighting] = useState(false);
  useEffect(() => {
    void loadHighlighter().then(() => setHighlighting(true));
  }, []);

  useEffect(() => {
    const look = () =>
      void services
        .workerState(sessionId)
        .then(setWorker)
        .catch(() => setWorker('unknown'));
    look();
    const timer = setInterval(look, 5_000);
    return () => clearInterval(timer);
  }, [services, sessionId]);

  useEffect(() => {
    if (!busy && !leaderPending) return;
    const timer = setInterval(() => setTick((value) => value + 1), 120);
    return () => clearInterval(timer);
  }, [busy, leaderPending]);

  // A queued prompt is shown until its run takes it (a new user message appears).
  const users = snapshot ? snapshot.entries.filter((entry) => entry.message.role === 'user').length : 0;
  useEffect(() => {
    setQueued((list) => list.filter((item) => item.users >= users));
  }, [users]);

  const userCount = users;
  useEffect(() => {
    if (!snapshot) return;
    history.current = promptHistory(
      snapshot.entries
        .filter((entry) => entry.message.role === 'user')
        .map((entry) =>
          entry.parts.flatMap((part) => (part.type === 'text' && !part.synthetic ? [part.text] : [])).join('\n'),
        ),
    );
  }, [sessionId, userCount]);

  const request = snapshot?.pending[0];
  useEffect(() => setPermissionStep({ kind: 'choose' }), [request?.id]);

  const quit = useCallback(() => {
    services.quitWith({ sessionId, busy: Boolean(busy) });
    exit();
  }, [services, sessionId, busy, exit]);

  const controls: AppControls = {
    services,
    snapshot,
    sessionId,
    open: (id) => {
      setSessionId(id);
      setDialog(undefined);
    },
    dialog,
    setDialog,
    say,
    fail,
    quit,
    setBuffer,
    restoreDraft: (text) => {
      if (!bufferRef.current.text) setBuffer(bufferOf(text));
    },
    agent: agent ?? session?.agent ?? services.defaultAgent,
    setAgent,
    model,
    setModel,
    toggleDetails: () => setExpanded((value) => !value),
    toggleThinking: () => setThinking((value) => !value),
    busy: Boolean(busy),
    queue: (text) => setQueued((list) => [...list, { text, users }]),
  };

  const small = columns < MIN_COLUMNS || rows < MIN_ROWS;
  const openMenu = completionMenu(buffer, { files, commands: services.slashCommands() });
  const menu =
    openMenu &&
    `${openMenu.query.start}:${buffer.text.slice(openMenu.query.start, openMenu.query.end)}` !== menuClosedFor
      ? openMenu
      : undefined;
  useEffect(() => setMenuIndex(0), [menu?.query.start, menu?.picks.length]);
  // The project's files are listed once, when a first `@` asks for them.
  const wantsFiles =
    menu === undefined && openMenu === undefined && /(^|\s)@\S*$/.test(buffer.text.slice(0, buffer.cursor));
  useEffect(() => {
    if (!wantsFiles || files.length) return;
    void services.projectFiles().then(setFiles).catch(fail);
  }, [wantsFiles, files.length, services, fail]);

  const handleKey = (input: string, key: Key): void => {
    // Bracketed paste (turned on by openTui): what comes between the markers is text, line breaks included.
    if (input === PASTE_START || input === PASTE_END) {
      pasting.current = input === PASTE_START;
      return;
    }
    if (pasting.current) {
      if (!dialog && !request) setBuffer((value) => insertText(value, input.replace(/\r\n?/g, '\n')));
      return;
    }
    if (small) {
      if (key.ctrl && (input === 'c' || input === 'd')) quit();
      return;
    }
    const now = Date.now();
    if (dialog) return handleDialogKey(input, key, dialog, controls);
    if (request) {
      if (permissionStep.kind === 'reject') {
        if (key.escape) return setPermissionStep({ kind: 'choose' });
        if (key.return) {
          const message = permissionStep.message.trim();
          setPermissionStep({ kind: 'choose' });
          return void services.actions
            .reply({ requestId: request.id, reply: 'reject', ...(message ? { message } : {}) })
            .then(() => watch?.refresh())
            .catch(fail);
        }
        if (key.backspace || key.delete)
          return setPermissionStep({ kind: 'reject', message: permissionStep.message.slice(0, -1) });
        if (!key.ctrl && !key.meta && input)
          return setPermissionStep({ kind: 'reject', message: permissionStep.message + input });
        return;
      }
      const reply = input === 'a' ? 'once' : input === 'A' ? 'always' : undefined;
      if (reply)
        return void services.actions
          .reply({ requestId: request.id, reply })
          .then(() => watch?.refresh())
          .catch(fail);
      if (input === 'r') return setPermissionStep({ kind: 'reject', message: '' });
    }
    if (menu && !request) {
      if (key.upArrow) return setMenuIndex((value) => Math.max(value - 1, 0));
      if (key.downArrow) return setMenuIndex((value) => Math.min(value + 1, menu.picks.length - 1));
      if (key.escape)
        return setMenuClosedFor(
          `${menu.query.start}:${bufferRef.current.text.slice(menu.query.start, menu.query.end)}`,
        );
      if (key.tab || key.return) {
        const picked = pickCompletion(bufferRef.current, menu, menuIndex);
        // A TUI command picked with Enter runs at once, as in OpenCode.
        const command = menu.query.kind === 'command' ? menu.picks[menuIndex] : undefined;
        if (key.return && command && services.isTuiCommand(command)) {
          setBuffer(EMPTY_BUFFER);
          return runAction('submit', controls, `/${command}`);
        }
        return setBuffer(picked);
      }
    }
    const pressed = resolver.press(input, key, now);
    setLeaderPending(pressed.leaderPending);
    if (pressed.leaderPending) return;
    if (pressed.action === 'session_interrupt') {
      if (!busy) return;
      if (now - escapeAt.current < 1_000) {
        escapeAt.current = 0;
        return runAction('interrupt', controls);
      }
      escapeAt.current = now;
      return say('esc again to interrupt');
    }
    // While a request waits, the prompt is hidden: keys move, cancel or quit, they do not type into it.
    if (request && !(pressed.action && pressed.action !== 'input_submit' && pressed.action !== 'input_newline')) return;
    if (pressed.action === 'app_exit' && key.ctrl && input === 'c') {
      // Ctrl+C clears a draft, else cancels a running turn, else quits when pressed twice.
      if (bufferRef.current.text) return setBuffer(EMPTY_BUFFER);
      if (busy) return runAction('interrupt', controls);
      if (now - interruptAt.current < 2_000) return quit();
      interruptAt.current = now;
      return say('ctrl+c again quits (ctrl+d or /exit too)');
    }
    if (pressed.action === 'app_exit' && key.ctrl && input === 'd' && bufferRef.current.text)
      return setBuffer(deleteForward(bufferRef.current));
    if (pressed.action === 'app_exit') return quit();
    if (pressed.action === 'messages_page_up') return setScroll((value) => value + Math.floor(rows / 2));
    if (pressed.action === 'messages_page_down') return setScroll((value) => Math.max(value - Math.floor(rows / 2), 0));
    if (pressed.action === 'input_submit') {
      const text = bufferRef.current.text;
      if (!text.trim()) return;
      setBuffer(EMPTY_BUFFER);
      history.current = rememberPrompt(history.current, text);
      setScroll(0);
      return runAction('submit', controls, text);
    }
    if (pressed.action === 'input_newline') return setBuffer((value) => insertNewline(value));
    if (pressed.action) return runAction(pressed.action, controls);
    const promptWidth = Math.max(columns - 2, 10);
    const step =
      key.upArrow && upRecallsHistory(bufferRef.current, promptWidth)
        ? recallPrevious(history.current, bufferRef.current)
        : key.downArrow && downRecallsHistory(history.current, bufferRef.current, promptWidth)
          ? recallNext(history.current)
          : undefined;
    if (step) {
      history.current = step.history;
      return setBuffer(step.buffer);
    }
    if (pressed.consumed) return;
    const edited = editPrompt(bufferRef.current, input, key, Math.max(columns - 2, 10));
    if (edited) setBuffer(edited);
  };

  useInput((input, key) => {
    if (pasting.current || input === PASTE_START || input === PASTE_END) return handleKey(input, key);
    for (const [chunkInput, chunkKey] of splitKeys(input, key)) handleKey(chunkInput, chunkKey);
  });

  const sections = screenSections({
    columns,
    rows,
    sessionId,
    snapshot,
    directory: services.directory,
    footer: services.footerFacts(controls.agent, model ?? session?.model, sessionId),
    transcript: transcript.current,
    buffer,
    queued,
    menu,
    menuIndex,
    dialog,
    permissionStep,
    expanded,
    thinking,
    scroll,
    tick,
    notice,
    leaderPending,
  });
  return (
    <Box flexDirection="column" width={columns}>
      {sections.map((section, index) => (
        <Text key={index} wrap="truncate-end">
          {section}
        </Text>
      ))}
    </Box>
  );
}

function handleDialogKey(
  input: string,
  key: Parameters<Parameters<typeof useInput>[0]>[1],
  dialog: ListDialog,
  controls: AppControls,
): void {
  const { setDialog } = controls;
  if (key.escape) return setDialog(undefined);
  if (dialog.kind === 'text') {
    if (key.upArrow) return setDialog({ ...dialog, index: Math.max(dialog.index - 1, 0) });
    if (key.downArrow) return setDialog({ ...dialog, index: dialog.index + 1 });
    if (key.pageUp) return setDialog({ ...dialog, index: Math.max(dialog.index - 10, 0) });
    if (key.pageDown) return setDialog({ ...dialog, index: dialog.index + 10 });
    if (key.return || input === 'q') return setDialog(undefined);
    return;
  }
  if (key.upArrow) return setDialog({ ...dialog, index: Math.max(dialog.index - 1, 0) });
  if (key.downArrow) return setDialog({ ...dialog, index: dialog.index + 1 });
  if (key.return) return runAction('dialog_pick', controls);
  if (key.backspace || key.delete) return setDialog({ ...dialog, filter: dialog.filter.slice(0, -1), index: 0 });
  if (input && !key.ctrl && !key.meta && !key.tab) setDialog({ ...dialog, filter: dialog.filter + input, index: 0 });
}

export type { SessionSnapshot };
